// collbench calibrate's plan and node level (harness/calibrate/): on two
// levels the intra-node ping-pong runs on every node's pair at once, and its
// fit is what the file's intra_alpha_s and intra_beta_s_per_B hold (ranks 0
// and 1 alone only beside it). A node level measured with one pair alone
// priced the 3 x 2 testbed's hierarchical rows low (docs/two-level.md).
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "harness/calibrate/measure.hpp"
#include "harness/calibrate/microbenchmarks.hpp"
#include "harness/calibrate/rank_plan.hpp"
#include "harness/runtime/node_layout.hpp"

namespace cb::calibrate {
namespace {

RankPlan plan_of(const std::vector<int>& node_of_rank) {
  return plan_ranks(static_cast<int>(node_of_rank.size()), layout_from_nodes(node_of_rank));
}

TEST(CalibratePlan, IntraNodePairsOnEveryNode) {
  const RankPlan three_by_two = plan_of({0, 0, 1, 1, 2, 2});
  EXPECT_EQ(three_by_two.network_pair, (std::vector<int>{0, 2}));
  EXPECT_EQ(three_by_two.fan_in_ranks, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(three_by_two.intra_pairs, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(plan_of({0, 0, 0, 0, 1, 1, 1, 1}).intra_pairs, (std::vector<int>{0, 1, 4, 5}));
  // A short last node of one rank has no pair; one of two has.
  EXPECT_EQ(plan_of({0, 0, 0, 3, 3, 3, 6}).intra_pairs, (std::vector<int>{0, 1, 3, 4}));
  EXPECT_EQ(plan_of({0, 0, 0, 3, 3, 3, 6, 6}).intra_pairs,
            (std::vector<int>{0, 1, 3, 4, 6, 7}));
  // One level (one node, one rank per node, irregular): no intra-node pairs.
  EXPECT_TRUE(plan_of({0, 0, 0, 0}).intra_pairs.empty());
  EXPECT_TRUE(plan_of({0, 1, 2, 3}).intra_pairs.empty());
  EXPECT_TRUE(plan_of({0, 1, 0, 1}).intra_pairs.empty());
}

TEST(CalibrateMicrobenchmarks, PairedPingPongRunsEveryPairInTheSameSteps) {
  constexpr std::size_t m = 4096;
  for (int rank = 0; rank < 6; ++rank) {
    SCOPED_TRACE(rank);
    const Schedule s = paired_ping_pong(rank, 6, m);
    EXPECT_EQ(s.p, 6);
    EXPECT_EQ(s.rank, rank);
    ASSERT_EQ(s.steps.size(), 2u);
    const bool first = rank % 2 == 0;  // sends in step 0, receives in step 1
    const Step& send_step = s.steps[first ? 0 : 1];
    const Step& recv_step = s.steps[first ? 1 : 0];
    ASSERT_EQ(send_step.sends.size(), 1u);
    EXPECT_TRUE(send_step.recvs.empty());
    ASSERT_EQ(recv_step.recvs.size(), 1u);
    EXPECT_TRUE(recv_step.sends.empty());
    EXPECT_EQ(send_step.sends[0].peer, rank ^ 1);
    EXPECT_EQ(recv_step.recvs[0].peer, rank ^ 1);
    EXPECT_EQ(send_step.sends[0].src.count, m);
    EXPECT_EQ(recv_step.recvs[0].dst.count, m);
  }
  // On 2 ranks it is the plain ping-pong.
  for (int rank = 0; rank < 2; ++rank) {
    const Schedule paired = paired_ping_pong(rank, 2, m), plain = ping_pong(rank, m, 1);
    ASSERT_EQ(paired.steps.size(), plain.steps.size());
    EXPECT_EQ(paired.p, 2);
    EXPECT_EQ(paired.count, plain.count);
    for (std::size_t i = 0; i < plain.steps.size(); ++i) {
      ASSERT_EQ(paired.steps[i].sends.size(), plain.steps[i].sends.size());
      ASSERT_EQ(paired.steps[i].recvs.size(), plain.steps[i].recvs.size());
      for (std::size_t j = 0; j < plain.steps[i].sends.size(); ++j)
        EXPECT_EQ(paired.steps[i].sends[j].peer, plain.steps[i].sends[j].peer);
      for (std::size_t j = 0; j < plain.steps[i].recvs.size(); ++j)
        EXPECT_EQ(paired.steps[i].recvs[j].peer, plain.steps[i].recvs[j].peer);
    }
  }
}

// Half round trips alpha + n beta at the ping-pong's sizes.
std::vector<double> line(const std::vector<double>& sizes, double alpha, double beta) {
  std::vector<double> out;
  for (double n : sizes) out.push_back(alpha + n * beta);
  return out;
}

TEST(CalibrateFit, NodeLevelIsEveryNodesPairAtOnce) {
  Measurements m;
  for (std::size_t b = kPingMin; b <= std::size_t{1} << 20; b *= 2)
    m.ping_B.push_back(static_cast<double>(b));
  m.t.pingpong_s = line(m.ping_B, 2.4e-3, 4.3e-8);  // the network: 2 ms, 200 Mbit/s
  m.t.exchange_B = m.ping_B;
  m.t.exchange_s = m.t.pingpong_s;
  for (std::size_t b = kLocalMin; b <= kLocalMax; b *= 2) {
    m.t.copy_B.push_back(static_cast<double>(b));
    m.t.copy_s.push_back(static_cast<double>(b) * 1e-10);
    m.t.reduce_B.push_back(static_cast<double>(b));
    m.t.reduce_s.push_back(static_cast<double>(b) * 2e-10);
  }
  // Every node's pair at once is 4x slower per byte than ranks 0 and 1 alone.
  m.intra_alone_ping_s = line(m.ping_B, 1e-4, 2.5e-9);
  m.intra_ping_s = line(m.ping_B, 4e-4, 1e-8);
  m.intra_pairs = 3;
  const models::Calibration c = calibration_of(m, "mpi", 2);
  EXPECT_EQ(c.ranks_per_node, 2);
  EXPECT_EQ(c.intra_pairs, 3);
  EXPECT_NEAR(c.intra_alpha_s, 4e-4, 0.05 * 4e-4);
  EXPECT_NEAR(c.intra_beta_s_per_B, 1e-8, 0.05 * 1e-8);
  EXPECT_EQ(c.intra_pingpong_s, m.intra_ping_s);
  EXPECT_NEAR(c.intra_alone_alpha_s, 1e-4, 0.05 * 1e-4);
  EXPECT_NEAR(c.intra_alone_beta_s_per_B, 2.5e-9, 0.05 * 2.5e-9);
  EXPECT_EQ(c.intra_alone_pingpong_s, m.intra_alone_ping_s);
  EXPECT_NEAR(c.params.beta_s_per_B, 4.3e-8, 0.05 * 4.3e-8);  // the network's, unchanged

  // One level: no intra-node figures at all.
  const models::Calibration one = calibration_of(m, "mpi", 0);
  EXPECT_EQ(one.ranks_per_node, 0);
  EXPECT_EQ(one.intra_pairs, 0);
  EXPECT_EQ(one.intra_beta_s_per_B, 0);
  EXPECT_EQ(one.intra_alone_beta_s_per_B, 0);
}

}  // namespace
}  // namespace cb::calibrate
