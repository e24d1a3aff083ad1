// reduce_inplace and divide_inplace against scalar references, for every
// datatype and op, over lengths and offsets that exercise the vectorised body,
// its remainder and unaligned starts.
#include "transports/kernels/reduce.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "algorithms/check.hpp"
#include "tests/kernels/reference_round.hpp"
#include "transports/kernels/half.hpp"
#include "transports/kernels/reduce_paths.hpp"

namespace cb {
namespace {

constexpr ReduceOp kReducingOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                                     ReduceOp::avg};
constexpr std::size_t kLengths[] = {1, 2, 7, 16, 63, 1001};

// ---- integers -----------------------------------------------------------------

// Wrapping arithmetic done in 64-bit unsigned and truncated: a different route
// from the kernel's per-type unsigned arithmetic.
template <class T>
T int_reference(ReduceOp op, T a, T b) {
  const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg:
      return static_cast<T>(ua + ub);
    case ReduceOp::prod:
      return static_cast<T>(ua * ub);
    case ReduceOp::min:
      return a < b ? a : b;
    case ReduceOp::max:
      return a < b ? b : a;
    // MPICH's C: (a && b), (a || b), (a && !b) || (!a && b), a & b ...
    case ReduceOp::land:
      return static_cast<T>(a && b);
    case ReduceOp::lor:
      return static_cast<T>(a || b);
    case ReduceOp::lxor:
      return static_cast<T>((a && !b) || (!a && b));
    case ReduceOp::band:
      return static_cast<T>(ua & ub);
    case ReduceOp::bor:
      return static_cast<T>(ua | ub);
    case ReduceOp::bxor:
      return static_cast<T>(ua ^ ub);
  }
  return 0;
}

template <class T>
std::vector<T> int_values(std::size_t n, std::uint32_t seed) {
  using L = std::numeric_limits<T>;
  const T special[] = {L::min(),
                       L::max(),
                       T(0),
                       T(1),
                       T(L::max() - 1),
                       T(L::min() + 1),
                       static_cast<T>(-1),
                       T(2),
                       T(L::max() / 2 + 1)};
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = (rng() % 3 == 0) ? special[rng() % std::size(special)] : static_cast<T>(rng());
  return v;
}

template <class T>
void check_integers(DataType dtype) {
  std::vector<ReduceOp> ops(std::begin(kReducingOps), std::end(kReducingOps));
  ops.insert(ops.end(), std::begin(kIntegerOnlyOps), std::end(kIntegerOnlyOps));
  for (ReduceOp op : ops) {
    for (std::size_t n : kLengths) {
      for (std::size_t offset : {0, 1}) {
        auto dst = int_values<T>(n + offset, static_cast<std::uint32_t>(n));
        const auto src = int_values<T>(n + offset, static_cast<std::uint32_t>(n + 1000));
        auto want = dst;
        for (std::size_t i = offset; i < n + offset; ++i)
          want[i] = int_reference(op, dst[i], src[i]);
        reduce_inplace(dtype, op, dst.data() + offset, src.data() + offset, n);
        ASSERT_EQ(dst, want) << to_string(dtype) << " " << to_string(op) << " n=" << n
                             << " offset=" << offset;
      }
    }
  }
}

TEST(ReduceInts, AllIntegerTypesAndOps) {
  check_integers<std::int8_t>(DataType::int8);
  check_integers<std::uint8_t>(DataType::uint8);
  check_integers<std::int16_t>(DataType::int16);
  check_integers<std::uint16_t>(DataType::uint16);
  check_integers<std::int32_t>(DataType::int32);
  check_integers<std::uint32_t>(DataType::uint32);
  check_integers<std::int64_t>(DataType::int64);
  check_integers<std::uint64_t>(DataType::uint64);
}

template <class T>
T reduce_one(DataType dtype, ReduceOp op, T a, T b) {
  reduce_inplace(dtype, op, &a, &b, 1);
  return a;
}

TEST(ReduceInts, WrapAroundLikeUnsigned) {
  EXPECT_EQ(reduce_one<std::int8_t>(DataType::int8, ReduceOp::sum, 127, 1), -128);
  EXPECT_EQ(reduce_one<std::int8_t>(DataType::int8, ReduceOp::prod, -128, -1), -128);
  EXPECT_EQ(reduce_one<std::int8_t>(DataType::int8, ReduceOp::prod, 16, 16), 0);
  EXPECT_EQ(reduce_one<std::uint8_t>(DataType::uint8, ReduceOp::sum, 200, 100), 44);
  EXPECT_EQ(reduce_one<std::uint8_t>(DataType::uint8, ReduceOp::prod, 255, 255), 1);
  EXPECT_EQ(reduce_one<std::int32_t>(DataType::int32, ReduceOp::sum, INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(reduce_one<std::int32_t>(DataType::int32, ReduceOp::prod, 65536, 65536), 0);
  EXPECT_EQ(reduce_one<std::uint32_t>(DataType::uint32, ReduceOp::sum, UINT32_MAX, 2), 1u);
  EXPECT_EQ(reduce_one<std::int64_t>(DataType::int64, ReduceOp::prod, INT64_MIN, -1), INT64_MIN);
  EXPECT_EQ(reduce_one<std::uint64_t>(DataType::uint64, ReduceOp::prod, UINT64_MAX, UINT64_MAX),
            1u);
  EXPECT_EQ(reduce_one<std::int64_t>(DataType::int64, ReduceOp::avg, INT64_MAX, 1), INT64_MIN);
  // 16-bit: 65535 * 65535 would overflow int if computed after promotion.
  EXPECT_EQ(reduce_one<std::uint16_t>(DataType::uint16, ReduceOp::prod, 65535, 65535), 1);
  EXPECT_EQ(reduce_one<std::int16_t>(DataType::int16, ReduceOp::sum, 32767, 1), -32768);
  EXPECT_EQ(reduce_one<std::int16_t>(DataType::int16, ReduceOp::prod, -32768, -1), -32768);
}

// MPI_LAND ... MPI_BXOR as MPICH computes them: logical ops give 1 or 0.
TEST(ReduceInts, LogicalAndBitwiseOps) {
  EXPECT_EQ(reduce_one<std::int32_t>(DataType::int32, ReduceOp::land, 2, 3), 1);
  EXPECT_EQ(reduce_one<std::int32_t>(DataType::int32, ReduceOp::land, 2, 0), 0);
  EXPECT_EQ(reduce_one<std::uint8_t>(DataType::uint8, ReduceOp::lor, 0, 0), 0);
  EXPECT_EQ(reduce_one<std::uint8_t>(DataType::uint8, ReduceOp::lor, 0, 200), 1);
  EXPECT_EQ(reduce_one<std::int8_t>(DataType::int8, ReduceOp::lxor, -1, 5), 0);
  EXPECT_EQ(reduce_one<std::int8_t>(DataType::int8, ReduceOp::lxor, -1, 0), 1);
  EXPECT_EQ(reduce_one<std::uint64_t>(DataType::uint64, ReduceOp::band, ~0ull, 0xF0ull), 0xF0u);
  EXPECT_EQ(reduce_one<std::int16_t>(DataType::int16, ReduceOp::bor, 0x0F00, 0x00F0), 0x0FF0);
  EXPECT_EQ(reduce_one<std::uint32_t>(DataType::uint32, ReduceOp::bxor, 0xFF00FF00u, 0x0FF00FF0u),
            0xF0F0F0F0u);
  // Defined on integers only; a float is a caller's bug.
  float f = 1, g = 2;
  EXPECT_THROW(reduce_inplace(DataType::fp32, ReduceOp::band, &f, &g, 1), InternalError);
  EXPECT_FALSE(op_applies(ReduceOp::lor, DataType::bf16));
  EXPECT_TRUE(op_applies(ReduceOp::lor, DataType::uint16));
  EXPECT_TRUE(op_applies(ReduceOp::max, DataType::fp16));
}

TEST(ReduceInts, MinMaxWithNegatives) {
  EXPECT_EQ(reduce_one<std::int8_t>(DataType::int8, ReduceOp::min, -5, 3), -5);
  EXPECT_EQ(reduce_one<std::int8_t>(DataType::int8, ReduceOp::max, -5, -128), -5);
  EXPECT_EQ(reduce_one<std::int32_t>(DataType::int32, ReduceOp::min, 7, -7), -7);
  EXPECT_EQ(reduce_one<std::int64_t>(DataType::int64, ReduceOp::max, INT64_MIN, -1), -1);
  EXPECT_EQ(reduce_one<std::uint8_t>(DataType::uint8, ReduceOp::min, 255, 0), 0);
  EXPECT_EQ(reduce_one<std::uint32_t>(DataType::uint32, ReduceOp::max, 0x80000000u, 1u),
            0x80000000u);  // unsigned: no sign bit
}

// ---- floating point -----------------------------------------------------------

// How a float datatype is stored and what its correctly rounded result is.
struct FloatCase {
  DataType dtype;
  std::size_t size;
  double (*load)(const std::byte*);
  void (*store)(std::byte*, double);  // x must be representable (or inf/NaN)
  double (*round)(double);            // nearest even in the type
};

template <class T>
T read(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void write(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

const FloatCase kFloatCases[] = {
    {DataType::fp16, 2,
     [](const std::byte* p) -> double { return half_to_float(read<std::uint16_t>(p)); },
     [](std::byte* p, double x) { write(p, float_to_half(static_cast<float>(x))); },
     [](double x) { return test::round_to(test::kFp16, x); }},
    {DataType::bf16, 2,
     [](const std::byte* p) -> double { return bf16_to_float(read<std::uint16_t>(p)); },
     [](std::byte* p, double x) { write(p, float_to_bf16(static_cast<float>(x))); },
     [](double x) { return test::round_to(test::kBf16, x); }},
    {DataType::fp32, 4, [](const std::byte* p) -> double { return read<float>(p); },
     [](std::byte* p, double x) { write(p, static_cast<float>(x)); },
     [](double x) { return static_cast<double>(static_cast<float>(x)); }},
    {DataType::fp64, 8, [](const std::byte* p) { return read<double>(p); },
     [](std::byte* p, double x) { write(p, x); }, [](double x) { return x; }},
};

// Random values of mixed magnitude (exponent within +-20 so sums are exact in
// double before the reference rounds them), with zeros, infinities, NaNs,
// values near the type's overflow and subnormals mixed in.
std::vector<std::byte> float_values(const FloatCase& fc, std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> exp(-20, 20);
  const double inf = std::numeric_limits<double>::infinity();
  const double big = fc.dtype == DataType::fp16 ? 60000.0 : 1e30;
  const double tiny = fc.dtype == DataType::fp16 ? 0x1p-20 : 0x1p-130;
  const double special[] = {0.0, -0.0, inf, -inf, std::nan(""), big, -big, tiny, -tiny, 1.0};
  std::vector<std::byte> out(n * fc.size);
  for (std::size_t i = 0; i < n; ++i) {
    double x = std::ldexp(mant(rng), exp(rng)) * ((rng() & 1) ? -1 : 1);
    if (rng() % 8 == 0) x = special[rng() % std::size(special)];
    fc.store(out.data() + i * fc.size, x);
  }
  return out;
}

double float_reference(const FloatCase& fc, ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg:
      return fc.round(a + b);
    case ReduceOp::prod:
      return fc.round(a * b);
    // NaN from either side propagates; otherwise the smaller/larger value,
    // and between equal values (+0, -0) min's -0 and max's +0.
    case ReduceOp::min:
      if (std::isnan(b) || std::isnan(a)) return std::isnan(b) ? b : a;
      if (a == b) return std::signbit(b) ? b : a;
      return b < a ? b : a;
    case ReduceOp::max:
      if (std::isnan(b) || std::isnan(a)) return std::isnan(b) ? b : a;
      if (a == b) return std::signbit(b) ? a : b;
      return a < b ? b : a;
    default:  // the logical and bitwise ops are not defined on floats
      break;
  }
  return 0;
}

bool same_value(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want);
}

bool half_is_nan(std::uint16_t h) { return (h & 0x7fffu) > 0x7c00u; }

using Reducer = void (*)(DataType, ReduceOp, void*, const void*, std::size_t);

void check_float_case(const FloatCase& fc, Reducer reduce) {
  for (ReduceOp op : kReducingOps) {
    for (std::size_t n : kLengths) {
      for (std::size_t offset : {0, 1}) {
        auto dst = float_values(fc, n + offset, static_cast<std::uint32_t>(n));
        const auto src = float_values(fc, n + offset, static_cast<std::uint32_t>(n + 77));
        const auto before = dst;
        reduce(fc.dtype, op, dst.data() + offset * fc.size, src.data() + offset * fc.size, n);
        for (std::size_t i = 0; i < n + offset; ++i) {
          const double a = fc.load(before.data() + i * fc.size);
          const double b = fc.load(src.data() + i * fc.size);
          const double want = i < offset ? a : float_reference(fc, op, a, b);
          const double got = fc.load(dst.data() + i * fc.size);
          ASSERT_TRUE(same_value(got, want))
              << to_string(fc.dtype) << " " << to_string(op) << " n=" << n << " i=" << i << ": "
              << a << " op " << b << " gave " << got << ", want " << want;
        }
      }
    }
  }
}

TEST(ReduceFloats, AllFloatTypesAndOps) {
  for (const FloatCase& fc : kFloatCases) check_float_case(fc, reduce_inplace);
}

// reduce_inplace takes the F16C path where the CPU has it; both paths must
// give the reference's results.
TEST(ReduceFloats, Fp16PortableAndHardwarePaths) {
  check_float_case(kFloatCases[0],
                   [](DataType, ReduceOp op, void* d, const void* s, std::size_t n) {
                     kernels_detail::reduce_fp16_portable(op, d, s, n);
                   });
  if (!kernels_detail::fp16_hardware_available()) GTEST_SKIP() << "no AVX2/F16C on this CPU";
  check_float_case(kFloatCases[0],
                   [](DataType, ReduceOp op, void* d, const void* s, std::size_t n) {
                     kernels_detail::reduce_fp16_hardware(op, d, s, n);
                   });
  // Bit-identical results on random 16-bit patterns, except that which NaN
  // payload a sum or product of two NaNs carries is up to the compiler and
  // CPU (a + b may be evaluated as b + a).
  std::mt19937 rng(99);
  std::vector<std::uint16_t> a(4099), b(4099);
  for (auto& x : a) x = static_cast<std::uint16_t>(rng());
  for (auto& x : b) x = static_cast<std::uint16_t>(rng());
  for (ReduceOp op : kReducingOps) {
    auto hw = a, sw = a;
    kernels_detail::reduce_fp16_hardware(op, hw.data(), b.data(), a.size());
    kernels_detail::reduce_fp16_portable(op, sw.data(), b.data(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      const bool two_nans = half_is_nan(a[i]) && half_is_nan(b[i]);
      if (two_nans && (op != ReduceOp::min && op != ReduceOp::max))
        ASSERT_TRUE(half_is_nan(hw[i]) && half_is_nan(sw[i]));
      else
        ASSERT_EQ(hw[i], sw[i]) << to_string(op) << " " << a[i] << " " << b[i];
    }
  }
}

// Cases the random sweep might miss: ties, overflow, NaN on each side, zeros.
TEST(ReduceFloats, RoundingAndSpecialCases) {
  auto fp16 = [](ReduceOp op, float a, float b) {
    std::uint16_t d = float_to_half(a), s = float_to_half(b);
    reduce_inplace(DataType::fp16, op, &d, &s, 1);
    return d;
  };
  EXPECT_EQ(fp16(ReduceOp::sum, 2048, 1), float_to_half(2048));  // tie to even: 2048
  EXPECT_EQ(fp16(ReduceOp::sum, 2050, 1), float_to_half(2052));  // tie to even: 2052
  EXPECT_EQ(fp16(ReduceOp::sum, 65504, 16), 0x7c00u);            // 65520: overflows to inf
  EXPECT_EQ(fp16(ReduceOp::sum, 65504, 15), 0x7bffu);
  EXPECT_EQ(fp16(ReduceOp::prod, 0x1p-14f, 0.5f), 0x0200u);  // into the subnormals
  EXPECT_EQ(fp16(ReduceOp::sum, 1.0f, -1.0f), 0x0000u);      // +0 in round-to-nearest
  auto bf16 = [](ReduceOp op, float a, float b) {
    std::uint16_t d = float_to_bf16(a), s = float_to_bf16(b);
    reduce_inplace(DataType::bf16, op, &d, &s, 1);
    return bf16_to_float(d);
  };
  EXPECT_EQ(bf16(ReduceOp::sum, 256, 1), 256.0f);  // 257 ties to even 256
  EXPECT_EQ(bf16(ReduceOp::sum, 258, 1), 260.0f);  // 259 ties to even 260
  EXPECT_EQ(bf16(ReduceOp::prod, 3, 3), 9.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (ReduceOp op : {ReduceOp::min, ReduceOp::max}) {
    float d = nan, s = 1;
    reduce_inplace(DataType::fp32, op, &d, &s, 1);
    EXPECT_TRUE(std::isnan(d)) << "NaN in dst propagates";
    d = 1, s = nan;
    reduce_inplace(DataType::fp32, op, &d, &s, 1);
    EXPECT_TRUE(std::isnan(d)) << "NaN in src propagates";
    double dd = -2, ds = std::nan("");
    reduce_inplace(DataType::fp64, op, &dd, &ds, 1);
    EXPECT_TRUE(std::isnan(dd));
    EXPECT_TRUE(std::isnan(bf16(op, 1, nan)));
    EXPECT_TRUE(std::isnan(bf16(op, nan, 1)));
  }
  // Equal zeros: min is -0 and max +0 whichever operand is dst, so the op
  // commutes bit for bit (ranks combining in opposite roles agree).
  for (const auto& [dz, sz] : {std::pair{0.0f, -0.0f}, std::pair{-0.0f, 0.0f}}) {
    float d = dz, s = sz;
    reduce_inplace(DataType::fp32, ReduceOp::min, &d, &s, 1);
    EXPECT_TRUE(std::signbit(d)) << "min of " << dz << " and " << sz;
    d = dz, s = sz;
    reduce_inplace(DataType::fp32, ReduceOp::max, &d, &s, 1);
    EXPECT_FALSE(std::signbit(d)) << "max of " << dz << " and " << sz;
    double dd = dz, ds = sz;
    reduce_inplace(DataType::fp64, ReduceOp::min, &dd, &ds, 1);
    EXPECT_TRUE(std::signbit(dd));
    EXPECT_TRUE(std::signbit(bf16(ReduceOp::min, dz, sz)));
    EXPECT_FALSE(std::signbit(bf16(ReduceOp::max, dz, sz)));
    EXPECT_EQ(fp16(ReduceOp::min, dz, sz), 0x8000u);
    EXPECT_EQ(fp16(ReduceOp::max, dz, sz), 0x0000u);
  }
  float d = -3, s = -7;
  reduce_inplace(DataType::fp32, ReduceOp::min, &d, &s, 1);
  EXPECT_EQ(d, -7);
  reduce_inplace(DataType::fp32, ReduceOp::max, &d, &s, 1);
  EXPECT_EQ(d, -7);
}

TEST(Reduce, CountZeroTouchesNothing) {
  for (DataType t : kAllDataTypes) {
    // Null pointers: count 0 must not dereference them (a crash fails the test).
    reduce_inplace(t, ReduceOp::sum, nullptr, nullptr, 0);
    divide_inplace(t, nullptr, 0, 3);
    // Real buffers keep every byte.
    std::vector<std::byte> dst(16, std::byte{0x5a}), src(16, std::byte{0xa5});
    const std::vector<std::byte> before = dst;
    for (ReduceOp op : kAllReduceOps) reduce_inplace(t, op, dst.data(), src.data(), 0);
    divide_inplace(t, dst.data(), 0, 3);
    EXPECT_EQ(dst, before) << to_string(t);
  }
}

// ---- divide_inplace -------------------------------------------------------------

constexpr int kDivisors[] = {1, 2, 3, 7, 100, 256, 1000};

template <class T>
void check_divide(DataType dtype) {
  for (int p : kDivisors) {
    auto v = int_values<T>(257, static_cast<std::uint32_t>(p));
    auto want = v;
    for (T& x : want) {
      if constexpr (std::is_signed_v<T>)
        x = static_cast<T>(static_cast<std::int64_t>(x) / p);  // truncates toward zero
      else
        x = static_cast<T>(static_cast<std::uint64_t>(x) / static_cast<std::uint64_t>(p));
    }
    divide_inplace(dtype, v.data(), v.size(), p);
    ASSERT_EQ(v, want) << to_string(dtype) << " / " << p;
  }
}

TEST(Divide, Integers) {
  check_divide<std::int8_t>(DataType::int8);
  check_divide<std::uint8_t>(DataType::uint8);
  check_divide<std::int32_t>(DataType::int32);
  check_divide<std::uint32_t>(DataType::uint32);
  check_divide<std::int16_t>(DataType::int16);
  check_divide<std::uint16_t>(DataType::uint16);
  check_divide<std::int64_t>(DataType::int64);
  check_divide<std::uint64_t>(DataType::uint64);
  std::int32_t v[] = {-7, 7, -1, INT32_MIN};
  divide_inplace(DataType::int32, v, 4, 2);
  EXPECT_EQ(v[0], -3);
  EXPECT_EQ(v[1], 3);
  EXPECT_EQ(v[2], 0);
  EXPECT_EQ(v[3], INT32_MIN / 2);
  std::uint8_t u = 255;
  divide_inplace(DataType::uint8, &u, 1, 256);
  EXPECT_EQ(u, 0);
}

TEST(Divide, FloatsRoundOnce) {
  for (const FloatCase& fc : kFloatCases) {
    for (int p : kDivisors) {
      auto v = float_values(fc, 257, static_cast<std::uint32_t>(p));
      const auto before = v;
      divide_inplace(fc.dtype, v.data(), 257, p);
      for (std::size_t i = 0; i < 257; ++i) {
        const double x = fc.load(before.data() + i * fc.size);
        // The double quotient rounds correctly to any format of <= 25 bits.
        const double want = fc.dtype == DataType::fp64 ? x / p : fc.round(x / p);
        ASSERT_TRUE(same_value(fc.load(v.data() + i * fc.size), want))
            << to_string(fc.dtype) << " " << x << " / " << p;
      }
    }
  }
}

TEST(Divide, RejectsNonPositiveP) {
  float x = 1;
  EXPECT_THROW(divide_inplace(DataType::fp32, &x, 1, 0), InternalError);
}

}  // namespace
}  // namespace cb
