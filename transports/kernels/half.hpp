// IEEE binary16 (fp16) and bfloat16 (bf16) <-> float conversions.
//
// The reduction kernels compute fp16/bf16 in float and round back: for + * min
// max, rounding a float result to fp16 (11-bit significand) or bf16 (8-bit) is
// the correctly rounded result, because float's 24 bits are at least 2p+2 for
// both formats, so the double rounding is harmless.
//
// Written branch-free (selects instead of ifs) so that loops calling them can
// be vectorised. Rounding is to nearest, ties to even; subnormals, infinities
// and NaNs are handled (a NaN stays a NaN, quiet, sign kept).
#pragma once

#include <bit>
#include <cstdint>

namespace cb {

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  // Normal: rebias the exponent (15 -> 127) and widen the significand.
  const std::uint32_t normal = sign | ((exp + 112u) << 23) | (mant << 13);
  // Infinity / NaN: all-ones exponent, payload kept.
  const std::uint32_t special = sign | 0x7f800000u | (mant << 13);
  // Zero / subnormal: the value is mant * 2^-24, exact in float.
  const float tiny = static_cast<float>(mant) * 0x1p-24f;
  const std::uint32_t subnormal = sign | std::bit_cast<std::uint32_t>(tiny);
  const std::uint32_t bits = exp == 0 ? subnormal : (exp == 31 ? special : normal);
  return std::bit_cast<float>(bits);
}

inline std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t a = x & 0x7fffffffu;  // |f| as bits
  // NaN: keep the top payload bits and force quiet so it cannot become inf.
  const std::uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);
  // |f| >= 65520 rounds to infinity (65504 is the largest finite fp16, 65520
  // the midpoint to the next binade).
  const std::uint32_t inf = 0x7c00u;
  // Normal range: rebias and round the 13 dropped bits to nearest even; a carry
  // out of the significand correctly bumps the exponent.
  const std::uint32_t odd = (a >> 13) & 1u;
  const std::uint32_t normal = (a - (112u << 23) + 0xfffu + odd) >> 13;
  // |f| < 2^-14 (fp16 subnormal range): adding 0.5f puts the value's multiple
  // of 2^-24 (the fp16 subnormal step) in the low significand bits, rounded to
  // nearest even by the FPU; 0x400 (rounded up to 2^-14) is the smallest normal.
  const float shifted = std::bit_cast<float>(a) + 0.5f;
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(shifted) - 0x3f000000u;
  const std::uint32_t mag =
      a > 0x7f800000u ? nan : (a >= 0x477ff000u ? inf : (a < 0x38800000u ? subnormal : normal));
  return static_cast<std::uint16_t>(sign | mag);
}

inline float bf16_to_float(std::uint16_t h) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
}

inline std::uint16_t float_to_bf16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  // Round the 16 dropped bits to nearest even; overflow carries into inf.
  const std::uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  // NaN: truncate and force the quiet bit so a small payload cannot become inf.
  const std::uint32_t nan = (x >> 16) | 0x0040u;
  const bool is_nan = (x & 0x7fffffffu) > 0x7f800000u;
  return static_cast<std::uint16_t>(is_nan ? nan : rounded);
}

}  // namespace cb
