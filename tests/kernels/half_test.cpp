// fp16 / bf16 conversions against two independent references: GCC's own
// _Float16 conversions (libgcc) and the ulp-scaling rounding in
// reference_round.hpp, on every 16-bit pattern, every rounding midpoint and
// its neighbours, and random floats.
#include "transports/kernels/half.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "tests/kernels/reference_round.hpp"

namespace cb {
namespace {

bool half_is_nan(std::uint16_t h) { return (h & 0x7fffu) > 0x7c00u; }
bool bf16_is_nan(std::uint16_t h) { return (h & 0x7fffu) > 0x7f80u; }

std::uint16_t gcc_half_bits(float f) {
  return std::bit_cast<std::uint16_t>(static_cast<_Float16>(f));
}

// The fp16 bits of x, given x is representable (or inf).
std::uint16_t half_bits_of(double x) {
  return std::bit_cast<std::uint16_t>(static_cast<_Float16>(static_cast<float>(x)));
}

std::uint16_t bf16_bits_of(double x) {
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(x)) >> 16);
}

// Every finite non-negative pattern, each midpoint to the next, and the
// floats just either side of the midpoint: where rounding goes wrong.
template <class ToBits, class FromBits>
void check_midpoints(std::uint16_t max_finite_bits, FromBits to_float, ToBits reference) {
  for (std::uint32_t h = 0; h < max_finite_bits; ++h) {
    const float lo = to_float(static_cast<std::uint16_t>(h));
    const float hi = to_float(static_cast<std::uint16_t>(h + 1));
    const float mid = lo + (hi - lo) / 2;  // exact: needs one more bit than the format
    for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f), lo, -mid,
                    -std::nextafter(mid, 1e30f)}) {
      const auto [got, want] = reference(f);
      ASSERT_EQ(got, want) << "h=" << h << " f=" << f;
    }
  }
}

TEST(Half, EveryPatternWidensLikeGcc) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float got = half_to_float(bits);
    const float want = static_cast<float>(std::bit_cast<_Float16>(bits));
    if (half_is_nan(bits)) {
      ASSERT_TRUE(std::isnan(got)) << h;
      ASSERT_EQ(float_to_half(got), bits | 0x0200u) << "NaN payload and sign kept, quieted";
    } else {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want)) << h;
      ASSERT_EQ(float_to_half(got), bits) << "round trip of " << h;
    }
  }
}

TEST(Half, RoundsMidpointsToNearestEven) {
  check_midpoints(0x7bff, half_to_float, [](float f) {
    const std::uint16_t got = float_to_half(f);
    EXPECT_EQ(got, gcc_half_bits(f)) << f;
    return std::pair{got, half_bits_of(test::round_to(test::kFp16, f))};
  });
}

TEST(Half, RandomFloatsMatchBothReferences) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> any;
  for (int i = 0; i < 1'000'000; ++i) {
    const float f = std::bit_cast<float>(any(rng));
    const std::uint16_t got = float_to_half(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(half_is_nan(got)) << std::bit_cast<std::uint32_t>(f);
      continue;
    }
    ASSERT_EQ(got, gcc_half_bits(f)) << f;
    ASSERT_EQ(got, half_bits_of(test::round_to(test::kFp16, f))) << f;
  }
}

TEST(Half, EdgeCases) {
  EXPECT_EQ(float_to_half(65504.0f), 0x7bffu);
  EXPECT_EQ(float_to_half(std::nextafter(65520.0f, 0.0f)), 0x7bffu);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00u);  // the tie rounds up, to inf
  EXPECT_EQ(float_to_half(-1e10f), 0xfc00u);
  EXPECT_EQ(float_to_half(0x1p-25f), 0x0000u);  // half the smallest subnormal: tie to 0
  EXPECT_EQ(float_to_half(std::nextafter(0x1p-25f, 1.0f)), 0x0001u);
  EXPECT_EQ(float_to_half(0x1.8p-24f), 0x0002u);  // 1.5 subnormal steps: tie to even 2
  EXPECT_EQ(float_to_half(std::nextafter(0x1p-14f, 0.0f)), 0x0400u);  // up to the smallest normal
  EXPECT_EQ(float_to_half(-0.0f), 0x8000u);
  EXPECT_EQ(float_to_half(std::bit_cast<float>(0x7f800001u)) & 0x7c00u, 0x7c00u);
  EXPECT_TRUE(half_is_nan(float_to_half(std::bit_cast<float>(0x7f800001u))));  // not inf
  EXPECT_EQ(half_to_float(0x0001u), 0x1p-24f);
  EXPECT_EQ(half_to_float(0x8000u), -0.0f);
  EXPECT_TRUE(std::signbit(half_to_float(0x8000u)));
}

TEST(Bf16, EveryPatternRoundTrips) {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = bf16_to_float(bits);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(f), h << 16);
    if (bf16_is_nan(bits))
      ASSERT_EQ(float_to_bf16(f), bits | 0x0040u) << "NaN quieted, sign and payload kept";
    else
      ASSERT_EQ(float_to_bf16(f), bits) << h;
  }
}

TEST(Bf16, RoundsMidpointsToNearestEven) {
  check_midpoints(0x7f7f, bf16_to_float, [](float f) {
    return std::pair{float_to_bf16(f), bf16_bits_of(test::round_to(test::kBf16, f))};
  });
}

TEST(Bf16, RandomFloatsMatchReference) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::uint32_t> any;
  for (int i = 0; i < 1'000'000; ++i) {
    const float f = std::bit_cast<float>(any(rng));
    const std::uint16_t got = float_to_bf16(f);
    if (std::isnan(f))
      ASSERT_TRUE(bf16_is_nan(got)) << std::bit_cast<std::uint32_t>(f);
    else
      ASSERT_EQ(got, bf16_bits_of(test::round_to(test::kBf16, f))) << f;
  }
}

TEST(Bf16, EdgeCases) {
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x7f7fffffu)), 0x7f80u);  // FLT_MAX -> inf
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80u);  // tie, even stays
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82u);  // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x00008000u)), 0x0000u);  // subnormal tie
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x00018000u)), 0x0002u);
  EXPECT_TRUE(bf16_is_nan(float_to_bf16(std::bit_cast<float>(0x7f800001u))));  // not inf
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000u);
}

}  // namespace
}  // namespace cb
