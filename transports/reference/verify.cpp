#include "transports/reference/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "algorithms/check.hpp"
#include "algorithms/collective.hpp"
#include "algorithms/schedule.hpp"
#include "transports/kernels/half.hpp"
#include "transports/kernels/reduce.hpp"

namespace cb {
namespace {

using Bytes = std::vector<std::byte>;

// ---- seeded values ---------------------------------------------------------

// splitmix64's finaliser: a bijective mix, so distinct keys give distinct,
// well spread hashes.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t hash_of(std::uint64_t seed, int rank, std::size_t j, std::uint64_t salt) {
  return mix(mix(mix(seed ^ salt) + static_cast<std::uint64_t>(rank)) + j);
}

bool is_unsigned(DataType t) {
  return t == DataType::uint8 || t == DataType::uint16 || t == DataType::uint32 ||
         t == DataType::uint64;
}

// Largest magnitude L such that every integer in [-L, L] ([0, L] unsigned) is
// exact in the type and sums within it never overflow.
std::int64_t exact_limit(DataType t) {
  switch (t) {
    case DataType::int8:
      return 127;
    case DataType::uint8:
      return 255;
    case DataType::int16:
      return 32767;
    case DataType::uint16:
      return 65535;
    case DataType::int32:
      return std::numeric_limits<std::int32_t>::max();
    case DataType::uint32:
      return std::numeric_limits<std::uint32_t>::max();
    case DataType::int64:
    case DataType::uint64:
      return std::int64_t{1} << 62;
    case DataType::fp16:
      return 2048;
    case DataType::bf16:
      return 256;
    case DataType::fp32:
      return std::int64_t{1} << 24;
    case DataType::fp64:
      return std::int64_t{1} << 53;
  }
  CB_CHECK(false, "bad DataType {}", static_cast<int>(t));
}

// Most factors of 2 a product may hold and stay within the type (fp16's
// largest finite value is 65504, so 2^15).
int max_doublings(DataType t) {
  switch (t) {
    case DataType::int8:
      return 6;
    case DataType::uint8:
      return 7;
    case DataType::int16:
      return 14;
    case DataType::uint16:
    case DataType::fp16:
      return 15;
    default:
      return 30;
  }
}

bool reduces(const VerifySpec& s) { return is_reducing(s.coll); }

bool random_floats(const VerifySpec& s) {
  return s.mode == InputMode::random && is_floating(s.dtype);
}

// Whether results depend on the reduction order, so only a tolerance works.
bool needs_tolerance(const VerifySpec& s) {
  return random_floats(s) && reduces(s) && s.op != ReduceOp::min && s.op != ReduceOp::max;
}

// What make_input writes at element j of rank's input, before conversion to
// the datatype: an exact integer, or a double in InputMode::random.
class ValueGen {
 public:
  explicit ValueGen(const VerifySpec& s) : s_(s) {
    limit_ = exact_limit(s.dtype);
    contributors_ = std::min<std::int64_t>(s.p, limit_);
    magnitude_ = limit_ / contributors_;
    doublers_ = std::min(s.p, max_doublings(s.dtype));
    // Rotates which ranks contribute, so the seed changes that too.
    shift_ = static_cast<std::size_t>(mix(s.seed ^ 0x5eedull) % static_cast<std::uint64_t>(s.p));
  }

  std::int64_t exact(int rank, std::size_t j) const {
    const std::uint64_t h = hash_of(s_.seed, rank, j, 1);
    const bool sign = !is_unsigned(s_.dtype);
    // min/max and the logical/bitwise ops are exact in any order for any value.
    if (!reduces(s_) || s_.op == ReduceOp::min || s_.op == ReduceOp::max ||
        !op_applies(s_.op, DataType::fp32))
      return uniform(h, sign ? -limit_ : 0, limit_);
    const std::size_t slot =
        (static_cast<std::size_t>(rank) + j + shift_) % static_cast<std::size_t>(s_.p);
    if (s_.op == ReduceOp::prod) {
      const std::int64_t mag = (slot < static_cast<std::size_t>(doublers_) && (h & 2)) ? 2 : 1;
      return (sign && (h & 1)) ? -mag : mag;
    }
    if (slot >= static_cast<std::size_t>(contributors_)) return 0;  // sum, avg
    return uniform(h, sign ? -magnitude_ : 0, magnitude_);
  }

  double random(int rank, std::size_t j) const {
    const std::uint64_t h = hash_of(s_.seed, rank, j, 2);
    const double u = static_cast<double>(h >> 11) * 0x1p-53;  // [0, 1)
    if (reduces(s_) && s_.op == ReduceOp::prod) {
      const double mag = 1.0 + (2.0 * u - 1.0) / (2.0 * s_.p);
      return (hash_of(s_.seed, rank, j, 3) & 1) ? -mag : mag;
    }
    return 2.0 * u - 1.0;
  }

 private:
  static std::int64_t uniform(std::uint64_t h, std::int64_t lo, std::int64_t hi) {
    // In unsigned arithmetic: hi - lo can reach 2^63, beyond int64.
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + h % range);
  }

  const VerifySpec& s_;
  std::int64_t limit_ = 0, contributors_ = 0, magnitude_ = 0;
  int doublers_ = 0;
  std::size_t shift_ = 0;
};

// ---- element access by datatype --------------------------------------------

template <class T>
void put(std::byte* out, std::size_t i, T v) {
  std::memcpy(out + i * sizeof(T), &v, sizeof(T));
}

template <class T>
T get(const std::byte* in, std::size_t i) {
  T v;
  std::memcpy(&v, in + i * sizeof(T), sizeof(T));
  return v;
}

// Writes `v` (exact for integers, rounded to nearest for floats).
void store_double(DataType t, std::byte* out, std::size_t i, double v) {
  switch (t) {
    case DataType::fp16:
      return put(out, i, float_to_half(static_cast<float>(v)));
    case DataType::bf16:
      return put(out, i, float_to_bf16(static_cast<float>(v)));
    case DataType::fp32:
      return put(out, i, static_cast<float>(v));
    case DataType::fp64:
      return put(out, i, v);
    default:
      CB_CHECK(false, "store_double on {}", to_string(t));
  }
}

void store_int(DataType t, std::byte* out, std::size_t i, std::int64_t v) {
  switch (t) {
    case DataType::int8:
      return put(out, i, static_cast<std::int8_t>(v));
    case DataType::uint8:
      return put(out, i, static_cast<std::uint8_t>(v));
    case DataType::int16:
      return put(out, i, static_cast<std::int16_t>(v));
    case DataType::uint16:
      return put(out, i, static_cast<std::uint16_t>(v));
    case DataType::int32:
      return put(out, i, static_cast<std::int32_t>(v));
    case DataType::uint32:
      return put(out, i, static_cast<std::uint32_t>(v));
    case DataType::int64:
      return put(out, i, v);
    case DataType::uint64:
      return put(out, i, static_cast<std::uint64_t>(v));
    default:
      return store_double(t, out, i, static_cast<double>(v));  // exact by design
  }
}

double load_double(DataType t, const std::byte* in, std::size_t i) {
  switch (t) {
    case DataType::fp16:
      return half_to_float(get<std::uint16_t>(in, i));
    case DataType::bf16:
      return bf16_to_float(get<std::uint16_t>(in, i));
    case DataType::fp32:
      return get<float>(in, i);
    case DataType::fp64:
      return get<double>(in, i);
    default:
      CB_CHECK(false, "load_double on {}", to_string(t));
  }
}

// Elements [first, first + n) of rank's input.
Bytes input_slice(const VerifySpec& s, int rank, std::size_t first, std::size_t n) {
  const ValueGen gen(s);
  Bytes out(n * element_size(s.dtype));
  if (random_floats(s)) {
    for (std::size_t i = 0; i < n; ++i)
      store_double(s.dtype, out.data(), i, gen.random(rank, first + i));
  } else {
    for (std::size_t i = 0; i < n; ++i)
      store_int(s.dtype, out.data(), i, gen.exact(rank, first + i));
  }
  return out;
}

// The reduction over all ranks of input elements [first, first + n), ranks
// combined in order 0..p-1. Order-dependent float cases are accumulated in
// double and rounded once, so the reference is as close to exact as it gets.
Bytes reduce_slice(const VerifySpec& s, std::size_t first, std::size_t n) {
  Bytes acc = input_slice(s, 0, first, n);
  if (needs_tolerance(s)) {
    std::vector<double> exact(n);
    for (std::size_t i = 0; i < n; ++i) exact[i] = load_double(s.dtype, acc.data(), i);
    for (int r = 1; r < s.p; ++r) {
      const Bytes x = input_slice(s, r, first, n);
      for (std::size_t i = 0; i < n; ++i) {
        const double v = load_double(s.dtype, x.data(), i);
        exact[i] = s.op == ReduceOp::prod ? exact[i] * v : exact[i] + v;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double v = s.op == ReduceOp::avg ? exact[i] / s.p : exact[i];
      store_double(s.dtype, acc.data(), i, v);
    }
    return acc;
  }
  for (int r = 1; r < s.p; ++r) {
    const Bytes x = input_slice(s, r, first, n);
    reduce_inplace(s.dtype, s.op, acc.data(), x.data(), n);
  }
  if (s.op == ReduceOp::avg) divide_inplace(s.dtype, acc.data(), n, s.p);
  return acc;
}

void check_spec(const VerifySpec& s) { CB_CHECK(s.p >= 1, "VerifySpec with p = {}", s.p); }

void check_rank(const VerifySpec& s, int rank) {
  check_spec(s);
  CB_CHECK(rank >= 0 && rank < s.p, "rank {} of p = {}", rank, s.p);
}

void append(Bytes& out, const Bytes& part) { out.insert(out.end(), part.begin(), part.end()); }

// ---- comparison -------------------------------------------------------------

// Maps a float's bits to an integer that is monotonic in the value, so ulp
// distance is a difference (+0 and -0 both map to 0).
std::int64_t ordered(std::uint64_t bits, int width) {
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  const auto mag = static_cast<std::int64_t>(bits & (sign - 1));
  return (bits & sign) ? -mag : mag;
}

bool nan_at(DataType t, const std::byte* in, std::size_t i) {
  switch (t) {
    case DataType::fp16:
      return (get<std::uint16_t>(in, i) & 0x7fffu) > 0x7c00u;
    case DataType::bf16:
      return (get<std::uint16_t>(in, i) & 0x7fffu) > 0x7f80u;
    case DataType::fp32:
      return (get<std::uint32_t>(in, i) & 0x7fffffffu) > 0x7f800000u;
    case DataType::fp64:
      return (get<std::uint64_t>(in, i) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    default:
      return false;
  }
}

std::uint64_t bits_at(const std::byte* in, std::size_t i, std::size_t size) {
  std::uint64_t v = 0;
  std::memcpy(&v, in + i * size, size);  // little-endian host: low bytes
  return v;
}

void check_sizes(const VerifySpec& s, std::span<const std::byte> got,
                 std::span<const std::byte> expected) {
  CB_CHECK(got.size() == expected.size(), "got {} bytes, expected {}", got.size(), expected.size());
  CB_CHECK(got.size() % element_size(s.dtype) == 0, "{} bytes is not whole {} elements", got.size(),
           to_string(s.dtype));
}

}  // namespace

std::vector<std::byte> make_input(const VerifySpec& spec, int rank) {
  check_rank(spec, rank);
  return input_slice(spec, rank, 0, input_count(spec.coll, spec.p, spec.count));
}

std::vector<std::byte> expected_output(const VerifySpec& s, int rank) {
  check_rank(s, rank);
  const CollectiveSpec& c = collective_spec(s.coll);
  const std::size_t n = s.count;
  const std::size_t first = c.source_offset(rank, n);
  if (c.reducing) return reduce_slice(s, first, n);
  Bytes out;
  for (int j = 0; j < s.p; ++j) append(out, input_slice(s, j, first, n));
  return out;
}

std::vector<std::vector<std::byte>> expected_outputs(const VerifySpec& s) {
  check_spec(s);
  const CollectiveSpec& c = collective_spec(s.coll);
  std::vector<Bytes> out(static_cast<std::size_t>(s.p));
  if (c.same_output_on_every_rank()) {
    const Bytes all = expected_output(s, 0);
    for (auto& o : out) o = all;
  } else if (c.reducing) {
    // One reduction over all p blocks, cut into each rank's block.
    const std::size_t block = s.count * element_size(s.dtype);
    const Bytes full = reduce_slice(s, 0, static_cast<std::size_t>(s.p) * s.count);
    for (std::size_t r = 0; r < out.size(); ++r)
      out[r].assign(full.begin() + static_cast<std::ptrdiff_t>(r * block),
                    full.begin() + static_cast<std::ptrdiff_t>((r + 1) * block));
  } else {
    for (int r = 0; r < s.p; ++r) out[static_cast<std::size_t>(r)] = expected_output(s, r);
  }
  return out;
}

std::size_t count_wrong(const VerifySpec& s, std::span<const std::byte> got,
                        std::span<const std::byte> expected) {
  check_sizes(s, got, expected);
  CB_CHECK(!needs_tolerance(s),
           "{} {} on random inputs depends on the reduction order: use count_wrong_within",
           to_string(s.dtype), to_string(s.op));
  const std::size_t size = element_size(s.dtype);
  const std::size_t n = got.size() / size;
  const bool ulp2 = is_floating(s.dtype) && reduces(s) && s.op == ReduceOp::avg;
  const int width = static_cast<int>(size * 8);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t g = bits_at(got.data(), i, size);
    const std::uint64_t e = bits_at(expected.data(), i, size);
    if (g == e && !nan_at(s.dtype, got.data(), i)) continue;
    if (ulp2 && !nan_at(s.dtype, got.data(), i) && !nan_at(s.dtype, expected.data(), i)) {
      const std::int64_t d = ordered(g, width) - ordered(e, width);
      if (d >= -2 && d <= 2) continue;
    }
    ++wrong;
  }
  return wrong;
}

std::vector<double> error_bounds(const VerifySpec& s, int rank) {
  check_rank(s, rank);
  const std::size_t n = output_count(s.coll, s.p, s.count);
  std::vector<double> bound(n, 0.0);
  if (!needs_tolerance(s)) return bound;
  double u = 0, tiny = 0;
  switch (s.dtype) {
    case DataType::fp16:
      u = 0x1p-11;
      tiny = 0x1p-24;
      break;
    case DataType::bf16:
      u = 0x1p-8;
      tiny = 0x1p-133;
      break;
    case DataType::fp32:
      u = 0x1p-24;
      tiny = 0x1p-149;
      break;
    default:
      u = 0x1p-53;
      tiny = std::numeric_limits<double>::denorm_min();
      break;
  }
  const std::size_t first = collective_spec(s.coll).source_offset(rank, s.count);
  const bool prod = s.op == ReduceOp::prod;
  std::vector<double> m(n, prod ? 1.0 : 0.0);
  for (int r = 0; r < s.p; ++r) {
    const Bytes x = input_slice(s, r, first, n);
    for (std::size_t i = 0; i < n; ++i) {
      const double a = std::fabs(load_double(s.dtype, x.data(), i));
      m[i] = prod ? m[i] * a : m[i] + a;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double mi = s.op == ReduceOp::avg ? m[i] / s.p : m[i];
    bound[i] = 2.0 * (s.p + 1) * u * mi + s.p * tiny;
  }
  return bound;
}

std::size_t count_wrong_within(const VerifySpec& s, std::span<const std::byte> got,
                               std::span<const std::byte> expected,
                               std::span<const double> bounds) {
  check_sizes(s, got, expected);
  const std::size_t n = got.size() / element_size(s.dtype);
  CB_CHECK(bounds.size() == n, "{} bounds for {} elements", bounds.size(), n);
  if (!is_floating(s.dtype)) return count_wrong(s, got, expected);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double g = load_double(s.dtype, got.data(), i);
    const double e = load_double(s.dtype, expected.data(), i);
    if (g == e) continue;                           // also equal infinities
    if (!(std::fabs(g - e) <= bounds[i])) ++wrong;  // NaN compares false
  }
  return wrong;
}

bool order_probe_applies(const VerifySpec& s) {
  return s.coll == Collective::allreduce && is_floating(s.dtype) && s.p >= 3 &&
         (s.op == ReduceOp::sum || s.op == ReduceOp::avg || s.op == ReduceOp::prod);
}

std::vector<std::byte> make_order_probe_input(const VerifySpec& s, int rank) {
  check_rank(s, rank);
  CB_CHECK(order_probe_applies(s), "order probe for {} {} {} p = {}", to_string(s.coll),
           to_string(s.dtype), to_string(s.op), s.p);
  const bool prod = s.op == ReduceOp::prod;
  double big = 0, little = 0;
  switch (s.dtype) {
    case DataType::fp16:
      big = prod ? 0x1p10 : 2048;
      little = 0.25;
      break;
    case DataType::bf16:
      big = prod ? 0x1p70 : 1024;
      little = 1;
      break;
    case DataType::fp32:
      big = prod ? 0x1p70 : 1e8;
      little = 0.01;
      break;
    default:
      big = prod ? 0x1p600 : 1e20;
      little = 0.01;
      break;
  }
  const std::size_t n = input_count(s.coll, s.p, s.count);
  const auto p = static_cast<std::uint64_t>(s.p);
  const std::uint64_t shift = mix(s.seed ^ 0x0dd5ull) % p;
  Bytes out(n * element_size(s.dtype));
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t a = (j * 7 + shift) % p;
    const std::uint64_t role = (static_cast<std::uint64_t>(rank) + p - a) % p;
    double v = 0;
    if (prod)
      v = role <= 1 ? big : role == 2 ? 1 / big : 1;
    else
      v = role == 0 ? big : role == 1 ? little : role == 2 ? -big : 0;
    store_double(s.dtype, out.data(), j, v);
  }
  return out;
}

std::uint64_t bytes_digest(std::span<const std::byte> bytes) {
  // 8 bytes at a time through splitmix64's mix: fast next to the collective,
  // and any flipped bit changes the digest with probability ~1 - 2^-64.
  std::uint64_t h = mix(bytes.size());
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, bytes.data() + i, 8);
    h = mix(h ^ w);
  }
  std::uint64_t tail = 0;
  if (i < bytes.size()) std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  return mix(h ^ tail);
}

std::size_t count_different(const VerifySpec& s, std::span<const std::byte> got,
                            std::span<const std::byte> reference) {
  check_sizes(s, got, reference);
  const std::size_t size = element_size(s.dtype);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); i += size)
    differ += std::memcmp(got.data() + i, reference.data() + i, size) != 0 ? 1 : 0;
  return differ;
}

}  // namespace cb
