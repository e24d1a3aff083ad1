#include "transports/kernels/reduce.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "algorithms/check.hpp"
#include "transports/kernels/half.hpp"
#include "transports/kernels/reduce_paths.hpp"
#include "transports/kernels/stream_copy.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cb {
namespace {

// How an element is stored and in which type it is computed. The dispatch
// below picks one loop per (element, op) at the call, so the loops themselves
// contain no per-element branching on the datatype or op.
template <class T>
struct Native {
  using Storage = T;
  using Compute = T;
  static T load(T v) { return v; }
  static T store(T v) { return v; }
};

struct Half {
  using Storage = std::uint16_t;
  using Compute = float;
  static float load(std::uint16_t v) { return half_to_float(v); }
  static std::uint16_t store(float v) { return float_to_half(v); }
};

struct BFloat {
  using Storage = std::uint16_t;
  using Compute = float;
  static float load(std::uint16_t v) { return bf16_to_float(v); }
  static std::uint16_t store(float v) { return float_to_bf16(v); }
};

// Integer + and * go through the unsigned type: wraparound without signed
// overflow UB (int8/uint8 promote to int, where 255*255 still fits; the
// unsigned -> signed conversion is modular since C++20). 16-bit types would
// promote to int too, where 65535*65535 overflows, so they compute in
// unsigned int.
template <class C>
struct Wrap {
  using type = C;
};
template <class C>
requires std::is_integral_v<C>
struct Wrap<C> {
  using type = std::conditional_t<sizeof(C) == 2, unsigned, std::make_unsigned_t<C>>;
};
template <class C>
using WrapType = typename Wrap<C>::type;

struct Sum {
  template <class C>
  static C apply(C a, C b) {
    using W = WrapType<C>;
    return static_cast<C>(static_cast<W>(static_cast<W>(a) + static_cast<W>(b)));
  }
};

struct Prod {
  template <class C>
  static C apply(C a, C b) {
    using W = WrapType<C>;
    return static_cast<C>(static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
  }
};

// `b != b` is true only for a NaN src, `b < a` is false when either is NaN:
// together they propagate a NaN from either side (see the header). Equal
// operands that differ in bits are +0 and -0: min takes the bitwise OR (-0)
// and max the AND (+0) of the two, so min(a, b) and min(b, a) have the same
// bits and an all-reduce whose partners each compute "mine (op) theirs"
// (butterfly) still agrees on every rank.
template <class C>
using FloatBits = std::conditional_t<sizeof(C) == 4, std::uint32_t, std::uint64_t>;

struct Min {
  template <class C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
      using U = FloatBits<C>;
      const C tie = std::bit_cast<C>(static_cast<U>(std::bit_cast<U>(a) | std::bit_cast<U>(b)));
      return (b < a || b != b) ? b : (a == b ? tie : a);
    } else {
      return b < a ? b : a;
    }
  }
};

struct Max {
  template <class C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
      using U = FloatBits<C>;
      const C tie = std::bit_cast<C>(static_cast<U>(std::bit_cast<U>(a) & std::bit_cast<U>(b)));
      return (a < b || b != b) ? b : (a == b ? tie : a);
    } else {
      return a < b ? b : a;
    }
  }
};

// MPI's logical ops give 1 or 0 in the type (MPICH: (a && b), (a || b),
// (a && !b) || (!a && b)); the bitwise ones are the C operators. Integers only.
struct LAnd {
  template <class C>
  static C apply(C a, C b) {
    return static_cast<C>(a != 0 && b != 0);
  }
};
struct LOr {
  template <class C>
  static C apply(C a, C b) {
    return static_cast<C>(a != 0 || b != 0);
  }
};
struct LXor {
  template <class C>
  static C apply(C a, C b) {
    return static_cast<C>((a != 0) != (b != 0));
  }
};
struct BAnd {
  template <class C>
  static C apply(C a, C b) {
    return static_cast<C>(a & b);
  }
};
struct BOr {
  template <class C>
  static C apply(C a, C b) {
    return static_cast<C>(a | b);
  }
};
struct BXor {
  template <class C>
  static C apply(C a, C b) {
    return static_cast<C>(a ^ b);
  }
};

// x86-64's baseline is SSE2 (16-byte vectors), while memcpy in glibc already
// picks AVX2/AVX-512 at load time; the loops get the same chance: GCC builds
// one clone per ISA and an ifunc resolver picks the best for the CPU once.
// Not under ThreadSanitizer: the resolvers run while the dynamic loader
// relocates, before the TSan runtime is up, and crash the program at load.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#if defined(__SANITIZE_THREAD__)
#define CB_KERNEL_CLONES
#else
#define CB_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#define CB_HAVE_F16C_PATH 1
#else
#define CB_KERNEL_CLONES
#define CB_HAVE_F16C_PATH 0
#endif

template <class E, class Op>
[[gnu::always_inline]] inline void combine(typename E::Storage* __restrict dst,
                                           const typename E::Storage* __restrict src,
                                           std::size_t count) {
#if !defined(__clang__)  // GCC's spelling; clang (the fuzz build) warns on it
#pragma GCC ivdep
#endif
  for (std::size_t i = 0; i < count; ++i)
    dst[i] = E::store(Op::apply(E::load(dst[i]), E::load(src[i])));
}

// A few elements first so that the bulk stores whole, aligned cache lines: a
// 64-byte vector store that straddles two lines costs about twice as much, and
// malloc'ed buffers are only 16-byte aligned. (A dst that is not even
// element-aligned, which C++ does not allow anyway, stays on the unaligned path.)
template <class E, class Op>
CB_KERNEL_CLONES void reduce_loop(typename E::Storage* __restrict dst,
                                  const typename E::Storage* __restrict src, std::size_t count) {
  using S = typename E::Storage;
  constexpr std::size_t kLine = 64;
  const auto addr = reinterpret_cast<std::uintptr_t>(dst);
  const std::size_t head = std::min(count, (kLine - addr % kLine) % kLine / sizeof(S));
  if ((addr + head * sizeof(S)) % kLine != 0) return combine<E, Op>(dst, src, count);
  combine<E, Op>(dst, src, head);
  combine<E, Op>(static_cast<S*>(__builtin_assume_aligned(dst + head, kLine)), src + head,
                 count - head);
}

// bf16 two elements per 32-bit word: widening a bf16 is a shift (the low
// half) or a mask (the high half), so the loop runs in 32-bit lanes without
// the pack/unpack shuffles that bound the element-wise loop (about 2.5x
// faster on AVX-512). Both halves get the same treatment, so the byte order
// does not matter.
template <class Op>
CB_KERNEL_CLONES void bf16_pair_loop(std::uint16_t* __restrict dst,
                                     const std::uint16_t* __restrict src, std::size_t count) {
  const std::size_t pairs = count / 2;
  for (std::size_t k = 0; k < pairs; ++k) {
    std::uint32_t a = 0, b = 0;
    std::memcpy(&a, dst + 2 * k, sizeof a);
    std::memcpy(&b, src + 2 * k, sizeof b);
    const float lo = Op::apply(std::bit_cast<float>(a << 16), std::bit_cast<float>(b << 16));
    const float hi =
        Op::apply(std::bit_cast<float>(a & 0xffff0000u), std::bit_cast<float>(b & 0xffff0000u));
    const std::uint32_t r = static_cast<std::uint32_t>(float_to_bf16(hi)) << 16 | float_to_bf16(lo);
    std::memcpy(dst + 2 * k, &r, sizeof r);
  }
  if (count % 2 != 0)
    dst[count - 1] =
        BFloat::store(Op::apply(BFloat::load(dst[count - 1]), BFloat::load(src[count - 1])));
}

template <class E, class Op>
void run_loop(typename E::Storage* dst, const typename E::Storage* src, std::size_t count) {
  if constexpr (std::is_same_v<E, BFloat>)
    bf16_pair_loop<Op>(dst, src, count);
  else
    reduce_loop<E, Op>(dst, src, count);
}

// reduce_into_streaming's loop: the head up to dst's first 64-byte line with
// plain stores, then a chunk of whole lines at a time computed into a buffer
// that stays in L1 and streamed to dst, so the loads of a and b and the
// non-temporal stores stay interleaved (a chunk of a few lines: measured
// faster on the VM than 16 KiB pieces, whose load and store phases take turns
// at the memory), then the tail. Every element is computed by combine, as
// reduce_inplace computes it, with a's value in the destination's role. `a`
// may be dst itself: each chunk of it is read before that chunk is written.
template <class E, class Op>
CB_KERNEL_CLONES void stream_combine_loop(typename E::Storage* dst, const typename E::Storage* a,
                                          const typename E::Storage* __restrict b,
                                          std::size_t count) {
  using S = typename E::Storage;
  std::size_t i = 0;
#if defined(__x86_64__)
  constexpr std::size_t kLine = 64, kChunkBytes = 4 * kLine, kChunk = kChunkBytes / sizeof(S);
  const auto addr = reinterpret_cast<std::uintptr_t>(dst);
  const std::size_t head = std::min(count, (kLine - addr % kLine) % kLine / sizeof(S));
  if ((addr + head * sizeof(S)) % kLine == 0) {
    if (head > 0) {
      if (dst != a) std::memcpy(dst, a, head * sizeof(S));
      combine<E, Op>(dst, b, head);
      i = head;
    }
    alignas(kLine) S chunk[kChunk];
    for (; i + kChunk <= count; i += kChunk) {
      // a into the chunk, then reduce_loop's own expression (combine: the
      // chunk is its dst), so even a sum of two NaNs keeps the payload that
      // copy-then-reduce_inplace gives.
      std::memcpy(chunk, a + i, kChunkBytes);
      combine<E, Op>(chunk, b + i, kChunk);
      auto* to = reinterpret_cast<__m128i*>(dst + i);
      const auto* from = reinterpret_cast<const __m128i*>(chunk);
      for (std::size_t v = 0; v < kChunkBytes / 16; ++v) _mm_stream_si128(to + v, _mm_load_si128(from + v));
    }
  }
#endif
  if (i < count) {
    if (dst != a) std::memcpy(dst + i, a + i, (count - i) * sizeof(S));
    combine<E, Op>(dst + i, b + i, count - i);
  }
}

// The logical and bitwise ops, which exist for integers only (op_applies).
template <class E>
void reduce_integer_only(ReduceOp op, typename E::Storage* d, const typename E::Storage* s,
                         std::size_t count) {
  if constexpr (std::is_integral_v<typename E::Compute>) {
    switch (op) {
      case ReduceOp::land: return run_loop<E, LAnd>(d, s, count);
      case ReduceOp::lor: return run_loop<E, LOr>(d, s, count);
      case ReduceOp::lxor: return run_loop<E, LXor>(d, s, count);
      case ReduceOp::band: return run_loop<E, BAnd>(d, s, count);
      case ReduceOp::bor: return run_loop<E, BOr>(d, s, count);
      case ReduceOp::bxor: return run_loop<E, BXor>(d, s, count);
      default: break;
    }
  }
  CB_CHECK(false, "op {} on a floating-point datatype", to_string(op));
}

template <class E>
void reduce_as(ReduceOp op, void* dst, const void* src, std::size_t count) {
  using S = typename E::Storage;
  auto* d = static_cast<S*>(dst);
  const auto* s = static_cast<const S*>(src);
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg:
      return run_loop<E, Sum>(d, s, count);
    case ReduceOp::prod:
      return run_loop<E, Prod>(d, s, count);
    case ReduceOp::min:
      return run_loop<E, Min>(d, s, count);
    case ReduceOp::max:
      return run_loop<E, Max>(d, s, count);
    case ReduceOp::land:
    case ReduceOp::lor:
    case ReduceOp::lxor:
    case ReduceOp::band:
    case ReduceOp::bor:
    case ReduceOp::bxor:
      return reduce_integer_only<E>(op, d, s, count);
  }
  CB_CHECK(false, "bad ReduceOp {}", static_cast<int>(op));
}

#if CB_HAVE_F16C_PATH
// fp16 with the F16C conversion instructions: the portable conversions
// vectorise, but at ~1 GB/s; vcvtph2ps/vcvtps2ph convert 8 lanes in one
// instruction with the same results (round to nearest even, subnormals kept,
// NaN quieted with its payload's top bits). Only this function is compiled for
// AVX2+F16C, and it only runs after the CPU check in reduce_fp16_hardware.
template <class Op>
__attribute__((target("avx2,f16c"))) __m256 apply8(__m256 a, __m256 b) {
  if constexpr (std::is_same_v<Op, Sum>) return _mm256_add_ps(a, b);
  if constexpr (std::is_same_v<Op, Prod>) return _mm256_mul_ps(a, b);
  // Same selection as Min/Max::apply: take src on (src < dst) / (dst < src)
  // or when src is NaN.
  // Equal operands (+0 and -0) give their OR (min) or AND (max), as there.
  const __m256 src_nan = _mm256_cmp_ps(b, b, _CMP_UNORD_Q);
  const __m256 equal = _mm256_cmp_ps(a, b, _CMP_EQ_OQ);
  if constexpr (std::is_same_v<Op, Min>)
    return _mm256_blendv_ps(
        _mm256_blendv_ps(a, b, _mm256_or_ps(_mm256_cmp_ps(b, a, _CMP_LT_OQ), src_nan)),
        _mm256_or_ps(a, b), equal);
  return _mm256_blendv_ps(
      _mm256_blendv_ps(a, b, _mm256_or_ps(_mm256_cmp_ps(a, b, _CMP_LT_OQ), src_nan)),
      _mm256_and_ps(a, b), equal);
}

template <class Op>
__attribute__((target("avx2,f16c"))) void fp16_f16c_loop(std::uint16_t* __restrict dst,
                                                         const std::uint16_t* __restrict src,
                                                         std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 a = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(dst + i)));
    const __m256 b = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(apply8<Op>(a, b), _MM_FROUND_TO_NEAREST_INT));
  }
  for (; i < count; ++i) dst[i] = Half::store(Op::apply(Half::load(dst[i]), Half::load(src[i])));
}
#endif

}  // namespace

namespace kernels_detail {

bool fp16_hardware_available() {
#if CB_HAVE_F16C_PATH
  static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return available;
#else
  return false;
#endif
}

void reduce_fp16_portable(ReduceOp op, void* dst, const void* src, std::size_t count) {
  reduce_as<Half>(op, dst, src, count);
}

// [[maybe_unused]]: without the F16C path (clang, other CPUs) only the check uses them.
void reduce_fp16_hardware([[maybe_unused]] ReduceOp op, [[maybe_unused]] void* dst,
                          [[maybe_unused]] const void* src,
                          [[maybe_unused]] std::size_t count) {
  CB_CHECK(fp16_hardware_available(), "fp16 hardware path on a CPU without AVX2/F16C");
#if CB_HAVE_F16C_PATH
  auto* d = static_cast<std::uint16_t*>(dst);
  const auto* s = static_cast<const std::uint16_t*>(src);
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg:
      return fp16_f16c_loop<Sum>(d, s, count);
    case ReduceOp::prod:
      return fp16_f16c_loop<Prod>(d, s, count);
    case ReduceOp::min:
      return fp16_f16c_loop<Min>(d, s, count);
    case ReduceOp::max:
      return fp16_f16c_loop<Max>(d, s, count);
    default:
      break;
  }
  CB_CHECK(false, "bad ReduceOp {}", static_cast<int>(op));
#endif
}

}  // namespace kernels_detail

namespace {

template <class E>
void divide_as(void* dst, std::size_t count, int p) {
  using S = typename E::Storage;
  using C = typename E::Compute;
  auto* d = static_cast<S*>(dst);
  if constexpr (std::is_integral_v<C>) {
    // Divide in the promoted type so p is never narrowed (uint8 / 256 is 0,
    // not a division by zero).
    using W = std::common_type_t<decltype(+C{}), int>;
    const auto divisor = static_cast<W>(p);
    for (std::size_t i = 0; i < count; ++i) d[i] = static_cast<S>(static_cast<W>(d[i]) / divisor);
  } else {
    const auto divisor = static_cast<C>(p);
    for (std::size_t i = 0; i < count; ++i) d[i] = E::store(E::load(d[i]) / divisor);
  }
}

// Calls f.template operator()<Element>() for the datatype's element traits.
template <class F>
void with_element(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::int8:
      return f.template operator()<Native<std::int8_t>>();
    case DataType::uint8:
      return f.template operator()<Native<std::uint8_t>>();
    case DataType::int32:
      return f.template operator()<Native<std::int32_t>>();
    case DataType::uint32:
      return f.template operator()<Native<std::uint32_t>>();
    case DataType::int64:
      return f.template operator()<Native<std::int64_t>>();
    case DataType::uint64:
      return f.template operator()<Native<std::uint64_t>>();
    case DataType::int16:
      return f.template operator()<Native<std::int16_t>>();
    case DataType::uint16:
      return f.template operator()<Native<std::uint16_t>>();
    case DataType::fp16:
      return f.template operator()<Half>();
    case DataType::bf16:
      return f.template operator()<BFloat>();
    case DataType::fp32:
      return f.template operator()<Native<float>>();
    case DataType::fp64:
      return f.template operator()<Native<double>>();
  }
  CB_CHECK(false, "bad DataType {}", static_cast<int>(dtype));
}

}  // namespace

void reduce_inplace(DataType dtype, ReduceOp op, void* dst, const void* src, std::size_t count) {
  if (count == 0) return;
  if (dtype == DataType::fp16 && kernels_detail::fp16_hardware_available())
    return kernels_detail::reduce_fp16_hardware(op, dst, src, count);
  with_element(dtype, [&]<class E>() { reduce_as<E>(op, dst, src, count); });
}

void divide_inplace(DataType dtype, void* dst, std::size_t count, int p) {
  CB_CHECK(p >= 1, "divide_inplace by p = {}", p);
  if (count == 0) return;
  with_element(dtype, [&]<class E>() { divide_as<E>(dst, count, p); });
}

namespace {

template <class E, class Op>
void stream_as(void* dst, const void* a, const void* b, std::size_t count) {
  using S = typename E::Storage;
  stream_combine_loop<E, Op>(static_cast<S*>(dst), static_cast<const S*>(a),
                             static_cast<const S*>(b), count);
}

template <class E>
void stream_op(ReduceOp op, void* dst, const void* a, const void* b, std::size_t count) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return stream_as<E, Sum>(dst, a, b, count);
    case ReduceOp::prod: return stream_as<E, Prod>(dst, a, b, count);
    case ReduceOp::min: return stream_as<E, Min>(dst, a, b, count);
    case ReduceOp::max: return stream_as<E, Max>(dst, a, b, count);
    default: break;
  }
  if constexpr (std::is_integral_v<typename E::Compute>) {
    switch (op) {
      case ReduceOp::land: return stream_as<E, LAnd>(dst, a, b, count);
      case ReduceOp::lor: return stream_as<E, LOr>(dst, a, b, count);
      case ReduceOp::lxor: return stream_as<E, LXor>(dst, a, b, count);
      case ReduceOp::band: return stream_as<E, BAnd>(dst, a, b, count);
      case ReduceOp::bor: return stream_as<E, BOr>(dst, a, b, count);
      case ReduceOp::bxor: return stream_as<E, BXor>(dst, a, b, count);
      default: break;
    }
  }
  CB_CHECK(false, "op {} on datatype without it", to_string(op));
}

// fp16 and bf16 have their own loops (F16C, bf16 pairs): pieces of a that
// stay in L1 are reduced there by reduce_inplace and then streamed out, so
// the bits are those loops' bits.
void stream_by_pieces(DataType dtype, ReduceOp op, std::byte* dst, const std::byte* a,
                      const std::byte* b, std::size_t count) {
  constexpr std::size_t kPieceBytes = std::size_t{4} << 10;
  alignas(64) std::byte piece[kPieceBytes];
  const std::size_t elem = element_size(dtype), piece_elems = kPieceBytes / elem;
  for (std::size_t at = 0; at < count; at += piece_elems) {
    const std::size_t n = std::min(piece_elems, count - at);
    std::memcpy(piece, a + at * elem, n * elem);
    reduce_inplace(dtype, op, piece, b + at * elem, n);
    stream_copy_unfenced(dst + at * elem, piece, n * elem);
  }
}

}  // namespace

void reduce_into_streaming(DataType dtype, ReduceOp op, void* dst, const void* a, const void* b,
                           std::size_t count) {
  if (count == 0) return;
  if (dtype == DataType::fp16 || dtype == DataType::bf16)
    stream_by_pieces(dtype, op, static_cast<std::byte*>(dst), static_cast<const std::byte*>(a),
                     static_cast<const std::byte*>(b), count);
  else
    with_element(dtype, [&]<class E>() { stream_op<E>(op, dst, a, b, count); });
  stream_fence();
}

}  // namespace cb
