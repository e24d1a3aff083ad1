// The building blocks of the ring / recursive algorithms on their own: block
// partition, the non-power-of-two fold's rank mapping, and the phase costs
// against the ring / halving sizes they must equal.
#include <gtest/gtest.h>

#include <numeric>

#include "algorithms/common/partition.hpp"
#include "algorithms/common/pow2_fold.hpp"
#include "algorithms/common/recursive_phases.hpp"
#include "algorithms/common/ring_phases.hpp"

namespace cb {
namespace {

TEST(Partition, BlocksTileTheVectorAndDifferByAtMostOne) {
  for (std::size_t n : {0u, 1u, 5u, 64u, 1000u})
    for (int k = 1; k <= 40; ++k) {
      std::size_t next = 0;
      for (int i = 0; i < k; ++i) {
        const Block blk = block(n, k, i);
        EXPECT_EQ(blk.offset, next) << n << " " << k << " " << i;
        EXPECT_LE(block_count(n, k, 0) - blk.count, 1u);
        next += blk.count;
      }
      EXPECT_EQ(next, n);
      EXPECT_EQ(block_offset(n, k, k), n);  // the end, as its comment promises
    }
}

TEST(Partition, Pow2Helpers) {
  for (int x = 1; x <= 1000; ++x) {
    const int f = pow2_floor(x);
    EXPECT_TRUE(is_pow2(f));
    EXPECT_LE(f, x);
    EXPECT_GT(2 * f, x);
    EXPECT_EQ(1 << floor_log2(x), f);
    EXPECT_GE(1 << ceil_log2(x), x);
    EXPECT_LT(1 << ceil_log2(x), 2 * x);
  }
  for (int bits = 0; bits <= 10; ++bits)
    for (int x = 0; x < (1 << bits); ++x) EXPECT_EQ(reverse_bits(reverse_bits(x, bits), bits), x);
}

TEST(Pow2Fold, EveryRankIsCoreOrFoldedIntoItsNeighbour) {
  for (int p = 1; p <= 70; ++p) {
    const Pow2Fold f(p);
    EXPECT_EQ(f.p2 + f.e, p);
    EXPECT_EQ(f.first_rank(0), 0);
    EXPECT_EQ(f.first_rank(f.p2), p);
    int extras = 0;
    for (int r = 0; r < p; ++r) {
      if (f.is_extra(r)) {
        ++extras;
        EXPECT_EQ(f.extra_of(f.core_of(r)), r) << p << " " << r;
        continue;
      }
      const int v = f.vrank(r);
      ASSERT_GE(v, 0);
      ASSERT_LT(v, f.p2);
      EXPECT_EQ(f.rank_of(v), r);
      EXPECT_EQ(f.first_rank(v + 1) - f.first_rank(v), f.width(v));
      EXPECT_EQ(f.width(v), f.extra_of(r) >= 0 ? 2 : 1);
    }
    EXPECT_EQ(extras, f.e);
  }
}

TEST(RecursivePhases, CostIsTheLargestAlignedRangePerRound) {
  // 10 elements over 8 blocks: blocks 0 and 1 hold 2, the rest 1.
  const auto off = partition_offsets(10, 8);
  EXPECT_EQ(max_aligned_range(off, 1), 2u);
  EXPECT_EQ(max_aligned_range(off, 2), 4u);
  EXPECT_EQ(max_aligned_range(off, 4), 6u);
  const Cost halving = recursive_phase_cost(off, 4, true);
  EXPECT_EQ(halving, (Cost{3, 4.0 * (2 + 4 + 6), 4.0 * (2 + 4 + 6)}));
  const Cost doubling = recursive_phase_cost(off, 4, false);
  EXPECT_EQ(doubling, (Cost{3, 4.0 * (2 + 4 + 6), 0}));
}

TEST(RingPhases, CostCountsTheLargestBlockEveryStep) {
  EXPECT_EQ(ring_phase_cost(1, 10, 1, 4, true), Cost{});
  EXPECT_EQ(ring_phase_cost(5, 3, 1, 8, true), (Cost{4, 4 * 24.0, 4 * 24.0}));
  EXPECT_EQ(ring_phase_cost(5, 3, 3, 8, false), (Cost{12, 4 * 24.0, 0}));
  const RingBlocks blocks{kOutput, 100, 7, 3};
  EXPECT_EQ(blocks.block(0), (Region{kOutput, 100, 3}));
  EXPECT_EQ(blocks.block(-1), (Region{kOutput, 105, 2}));
  EXPECT_EQ(blocks.block(4), (Region{kOutput, 103, 2}));
}

}  // namespace
}  // namespace cb
