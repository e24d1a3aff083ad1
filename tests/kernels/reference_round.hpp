// Test-only reference rounding: an exactly known double rounded to a narrow
// binary format by scaling to its ulp and rounding with nearbyint (ties to
// even in the default rounding mode). Deliberately a different method from
// the bit manipulation in transports/kernels/half.hpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace cb::test {

struct NarrowFormat {
  int significand_bits;  // including the implicit bit: 11 fp16, 8 bf16
  int min_exponent;      // exponent of the smallest normal: -14 fp16, -126 bf16
  double max_finite;     // 65504 fp16, (2 - 2^-7) 2^127 bf16
};

inline constexpr NarrowFormat kFp16{11, -14, 65504.0};
inline constexpr NarrowFormat kBf16{8, -126, 0x1.fep127};

// x rounded to nearest even in format f, returned as a double (inf on overflow).
inline double round_to(const NarrowFormat& f, double x) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  const int exponent = std::max(e - 1, f.min_exponent);
  const double ulp = std::ldexp(1.0, exponent - (f.significand_bits - 1));
  const double r = std::nearbyint(x / ulp) * ulp;
  if (std::fabs(r) > f.max_finite) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

}  // namespace cb::test
