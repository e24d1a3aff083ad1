// Splitting a vector into near-equal blocks, and power-of-two helpers.
//
// Every block-based algorithm (ring, recursive halving, pairwise ...) cuts
// `n` elements into k blocks the same way, so that blocks computed on
// different ranks agree: the first n % k blocks hold n / k + 1 elements, the
// rest n / k. Blocks may be empty when n < k. Units: ELEMENTS.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>

namespace cb {

struct Block {
  std::size_t offset = 0;  // elements from the start of the vector
  std::size_t count = 0;   // elements
};

// Elements in block i (0 <= i < k) of n split into k blocks.
constexpr std::size_t block_count(std::size_t n, int k, int i) {
  const auto kk = static_cast<std::size_t>(k);
  const auto ii = static_cast<std::size_t>(i);
  return n / kk + (ii < n % kk ? 1 : 0);
}

// Offset of block i (0 <= i <= k; i == k gives n).
constexpr std::size_t block_offset(std::size_t n, int k, int i) {
  const auto kk = static_cast<std::size_t>(k);
  const auto ii = static_cast<std::size_t>(i);
  return ii * (n / kk) + std::min(ii, n % kk);
}

constexpr Block block(std::size_t n, int k, int i) {
  return {block_offset(n, k, i), block_count(n, k, i)};
}

constexpr bool is_pow2(int x) { return x > 0 && std::has_single_bit(static_cast<unsigned>(x)); }

// floor(log2 x) for x >= 1.
constexpr int floor_log2(int x) { return std::bit_width(static_cast<unsigned>(x)) - 1; }

// ceil(log2 x) for x >= 1 (0 for x == 1).
constexpr int ceil_log2(int x) { return x <= 1 ? 0 : std::bit_width(static_cast<unsigned>(x - 1)); }

// Largest power of two <= x, for x >= 1.
constexpr int pow2_floor(int x) {
  return static_cast<int>(std::bit_floor(static_cast<unsigned>(x)));
}

// x with its low `bits` bits in reverse order (0 <= x < 2^bits).
constexpr int reverse_bits(int x, int bits) {
  int y = 0;
  for (int i = 0; i < bits; ++i) y |= ((x >> i) & 1) << (bits - 1 - i);
  return y;
}

static_assert(reverse_bits(1, 3) == 4 && reverse_bits(6, 3) == 3 && reverse_bits(0, 0) == 0);
static_assert(block_count(10, 4, 0) == 3 && block_count(10, 4, 2) == 2);
static_assert(block_offset(10, 4, 2) == 6 && block_offset(10, 4, 4) == 10);
static_assert(block_count(2, 5, 3) == 0 && block_offset(2, 5, 5) == 2);
static_assert(floor_log2(1) == 0 && floor_log2(7) == 2 && floor_log2(8) == 3);
static_assert(ceil_log2(1) == 0 && ceil_log2(5) == 3 && ceil_log2(8) == 3);
static_assert(pow2_floor(1) == 1 && pow2_floor(12) == 8 && is_pow2(16) && !is_pow2(12));

}  // namespace cb
