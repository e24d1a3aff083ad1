// models/shared_link.hpp: transfers that share one link at equal rates.
#include <gtest/gtest.h>

#include "models/shared_link.hpp"

namespace cb::models {
namespace {

TEST(SharedLink, AloneATransferTakesItsOwnTime) {
  const auto ends = shared_link_ends({{1.0, 2.0}, {3.0, 1.0}, {10.0, 0.0}});
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_DOUBLE_EQ(ends[0], 3.0);
  EXPECT_DOUBLE_EQ(ends[1], 4.0);   // starts as the first ends
  EXPECT_DOUBLE_EQ(ends[2], 10.0);  // no work: ends at its start
}

TEST(SharedLink, OverlappingTransfersShareTheLinkEqually) {
  // Two of 1 s from 0: each moves at half speed, both end at 2.
  auto ends = shared_link_ends({{0.0, 1.0}, {0.0, 1.0}});
  EXPECT_DOUBLE_EQ(ends[0], 2.0);
  EXPECT_DOUBLE_EQ(ends[1], 2.0);
  // 2 s from 0 and 0.5 s from 1 (given out of order): alone until 1 (1 s
  // left), then halves: the short one ends at 2, the long one has 0.5 s
  // left and ends at 2.5, when the link has done 2.5 s of work.
  ends = shared_link_ends({{1.0, 0.5}, {0.0, 2.0}});
  EXPECT_DOUBLE_EQ(ends[0], 2.0);
  EXPECT_DOUBLE_EQ(ends[1], 2.5);
  // Three at once, unequal: 1, 2, 3 s of work end at 3, 5, 6.
  ends = shared_link_ends({{0.0, 3.0}, {0.0, 1.0}, {0.0, 2.0}});
  EXPECT_DOUBLE_EQ(ends[1], 3.0);
  EXPECT_DOUBLE_EQ(ends[2], 5.0);
  EXPECT_DOUBLE_EQ(ends[0], 6.0);
}

TEST(SharedLink, TheLastEndIsTheWorkOfABusyLink) {
  // However they overlap, a link busy from the first start to the last end
  // has done all the work.
  std::vector<LinkTransfer> xs;
  double work = 0;
  for (int i = 0; i < 50; ++i) {
    xs.push_back({0.01 * i, 0.1 + 0.003 * (i % 7)});
    work += xs.back().work_s;
  }
  const auto ends = shared_link_ends(xs);
  double last = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    EXPECT_GE(ends[i], xs[i].start_s + xs[i].work_s - 1e-12);
    last = std::max(last, ends[i]);
  }
  EXPECT_NEAR(last, work, 1e-9);
}

}  // namespace
}  // namespace cb::models
