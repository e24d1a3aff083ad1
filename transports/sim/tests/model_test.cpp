// The simulator's network model on hand-built schedules whose time is known on
// paper: one message, port serialisation in each direction, full duplex,
// step readiness, gamma, the refinements (o, topology, skew, noise), window
// and thread independence, and stall reports.
//
// Parameters are powers of two so every sum below is exact in double and
// times can be compared with ==.
#include <gtest/gtest.h>

#include <algorithm>

#include "algorithms/schedule_cost.hpp"
#include "transports/sim/tests/hand_schedules.hpp"
#include "transports/sim/simulator.hpp"

namespace cb::sim {
namespace {

using test::make_source;

constexpr double kAlpha = 0x1p-20, kBeta = 0x1p-33, kGamma = 0x1p-34;

NetworkParams dyadic() {
  NetworkParams n;
  n.alpha_s = kAlpha;
  n.beta_s_per_B = kBeta;
  n.gamma_s_per_B = kGamma;
  return n;
}

double msg(std::size_t elems) { return kAlpha + static_cast<double>(elems * 4) * kBeta; }

std::vector<Schedule> whole(int p, const ScheduleSource& src) {
  std::vector<Schedule> all;
  for (int r = 0; r < p; ++r) all.push_back(src(r, 0, ScheduleBuilder::kNoEnd));
  return all;
}

double cost_seconds(const Cost& c) { return kAlpha * c.alpha + kBeta * c.beta + kGamma * c.gamma; }

TEST(SimModel, OneMessageCostsAlphaPlusBytesBeta) {
  auto src = make_source(2, [](ScheduleBuilder& b, int r, int) {
    b.step();
    if (r == 0) b.send(1, {kInput, 0, 1000});
    else b.recv(0, {kOutput, 0, 1000});
  });
  const SimResult res = simulate(2, src, dyadic());
  EXPECT_EQ(res.time_s, msg(1000));
  EXPECT_EQ(res.messages, 1u);
  EXPECT_EQ(res.steps, 1u);
}

TEST(SimModel, ReductionsCostGammaOnTheReceiverCopiesAreFree) {
  auto src = make_source(2, [](ScheduleBuilder& b, int r, int) {
    b.step();
    if (r == 0) {
      b.send(1, {kInput, 0, 1000});
      b.copy({kInput, 0, 10}, {kOutput, 0, 10});
    } else {
      b.recv_reduce(0, {kOutput, 0, 1000});
      b.reduce({kInput, 0, 500}, {kOutput, 0, 500});
    }
  });
  EXPECT_EQ(simulate(2, src, dyadic()).time_s, msg(1000) + 1500 * 4 * kGamma);
}

TEST(SimModel, SendsSerialiseOnTheOutgoingPort) {
  auto src = make_source(4, [](ScheduleBuilder& b, int r, int) {
    b.step();
    if (r == 0)
      for (int q = 1; q < 4; ++q) b.send(q, {kInput, 0, 100});
    else
      b.recv(0, {kOutput, 0, 100});
  });
  EXPECT_EQ(simulate(4, src, dyadic()).time_s, 3 * msg(100));
}

TEST(SimModel, ReceivesSerialiseOnTheIncomingPort) {
  auto src = make_source(4, [](ScheduleBuilder& b, int r, int) {
    b.step();
    if (r == 0)
      for (int q = 1; q < 4; ++q) b.recv(q, {kOutput, static_cast<std::size_t>(q) * 100, 100});
    else
      b.send(0, {kInput, 0, 100});
  });
  EXPECT_EQ(simulate(4, src, dyadic()).time_s, 3 * msg(100));
}

TEST(SimModel, PortsAreFullDuplex) {
  auto src = make_source(2, [](ScheduleBuilder& b, int r, int) {
    b.step();
    b.send(1 - r, {kInput, 0, 300});
    b.recv(1 - r, {kOutput, 0, 300});
  });
  EXPECT_EQ(simulate(2, src, dyadic()).time_s, msg(300));
}

TEST(SimModel, AMessageWaitsForItsSenderToReachTheStep) {
  // 0 -> 1 (large) in step 0, then 1 -> 2 (small) in step 1: rank 2 idles
  // in step 0 but its receive cannot start before rank 1 is done.
  auto src = make_source(3, [](ScheduleBuilder& b, int r, int) {
    b.step();
    if (r == 0) b.send(1, {kInput, 0, 5000});
    if (r == 1) b.recv(0, {kOutput, 0, 5000});
    b.step();
    if (r == 1) b.send(2, {kOutput, 0, 10});
    if (r == 2) b.recv(1, {kOutput, 0, 10});
  });
  EXPECT_EQ(simulate(3, src, dyadic()).time_s, msg(5000) + msg(10));
}

TEST(SimModel, EmptyScheduleTakesNoTime) {
  auto src = make_source(5, [](ScheduleBuilder&, int, int) {});
  const SimResult res = simulate(5, src, dyadic());
  EXPECT_EQ(res.time_s, 0);
  EXPECT_EQ(res.messages, 0u);
}

// Two independent pairs whose big message falls in different steps: the
// per-step-max cost charges two big messages, each pair only pays one big and
// one small. Round-synchronous mode reproduces the cost sum.
TEST(SimModel, AsynchronousIsFasterWhenCriticalRanksAlternateRoundsModeIsTheCost) {
  auto src = make_source(4, [](ScheduleBuilder& b, int r, int) {
    for (int s = 0; s < 2; ++s) {
      b.step();
      const bool big = (r < 2) == (s == 0);
      const std::size_t n = big ? 4000 : 40;
      if (r % 2 == 0) b.send(r + 1, {kInput, 0, n});
      else b.recv(r - 1, {kOutput, 0, n});
    }
  });
  const double cost = cost_seconds(schedule_cost(whole(4, src)));
  EXPECT_EQ(cost, 2 * msg(4000));
  EXPECT_EQ(simulate(4, src, dyadic()).time_s, msg(4000) + msg(40));
  NetworkParams rounds = dyadic();
  rounds.round_synchronous = true;
  EXPECT_EQ(simulate(4, src, rounds).time_s, cost);
}

TEST(SimModel, RingAllreduceEqualsItsScheduleCost) {
  for (int p : {1, 2, 3, 8, 13}) {
    auto src = make_source(p, test::ring_allreduce, 1001);
    const double cost = cost_seconds(schedule_cost(whole(p, src)));
    EXPECT_EQ(simulate(p, src, dyadic()).time_s, cost) << "p=" << p;
  }
}

TEST(SimModel, ResultsDoNotDependOnWindowSizeOrThreads) {
  const int p = 9;
  auto src = make_source(p, test::ring_allreduce, 1000);
  NetworkParams net = dyadic();
  net.noise_s = 1e-6;  // makes every rank's timeline different
  SimOptions one;
  one.window_steps = 1;
  one.limits.threads = 1;
  const SimResult ref = simulate(p, src, net, one);
  for (std::uint64_t w : {2u, 5u, 16u, 0u}) {
    for (int threads : {1, 3}) {
      SimOptions opt;
      opt.window_steps = w;
      opt.limits.threads = threads;
      const SimResult res = simulate(p, src, net, opt);
      EXPECT_EQ(res.time_s, ref.time_s) << "window " << w << " threads " << threads;
      EXPECT_EQ(res.messages, ref.messages);
    }
  }
  EXPECT_EQ(ref.windows, ref.steps);
}

TEST(SimModel, LogGpOverheadIsPaidAtBothEnds) {
  NetworkParams net = dyadic();
  net.overhead_s = 0x1p-22;
  auto src = make_source(2, [](ScheduleBuilder& b, int r, int) {
    b.step();
    b.send(1 - r, {kInput, 0, 300});
    b.recv(1 - r, {kOutput, 0, 300});
  });
  EXPECT_EQ(simulate(2, src, net).time_s, msg(300) + 2 * net.overhead_s);
  // Ring: every one of its 2(p-1) communicating steps pays o twice.
  const int p = 4;
  auto ring = make_source(p, test::ring_allreduce, 1000);
  const double cost = cost_seconds(schedule_cost(whole(p, ring)));
  EXPECT_EQ(simulate(p, ring, net).time_s, cost + 2 * (p - 1) * 2 * net.overhead_s);
}

TEST(SimModel, TwoLevelTopologyUsesIntraNodeParametersWithinANode) {
  NetworkParams net = dyadic();
  net.ranks_per_node = 2;
  net.intra_alpha_s = 0x1p-23;
  net.intra_beta_s_per_B = 0x1p-36;
  auto pairs = make_source(4, [](ScheduleBuilder& b, int r, int) {  // 0<->1, 2<->3
    b.step();
    b.send(r ^ 1, {kInput, 0, 1000});
    b.recv(r ^ 1, {kOutput, 0, 1000});
  });
  EXPECT_EQ(simulate(4, pairs, net).time_s, net.intra_alpha_s + 4000 * net.intra_beta_s_per_B);
  // Across: both ranks of a node send 1000 fp32 over its one link (and
  // receive as many over it) at once, so they share it: alpha + 8000 B beta.
  auto across = make_source(4, [](ScheduleBuilder& b, int r, int) {  // 0<->2, 1<->3
    b.step();
    b.send(r ^ 2, {kInput, 0, 1000});
    b.recv(r ^ 2, {kOutput, 0, 1000});
  });
  EXPECT_EQ(simulate(4, across, net).time_s, net.alpha_s + 8000 * net.beta_s_per_B);
  // One rank of each node across: its port's alpha + 4000 B beta, as alone.
  auto one = make_source(4, [](ScheduleBuilder& b, int r, int) {  // 0<->2
    b.step();
    if (r % 2 != 0) return;
    b.send(r ^ 2, {kInput, 0, 1000});
    b.recv(r ^ 2, {kOutput, 0, 1000});
  });
  EXPECT_EQ(simulate(4, one, net).time_s, msg(1000));
}

TEST(SimModel, SkewAndNoiseAreSeededAndSlowTheCollectiveDown) {
  const int p = 16;
  auto src = make_source(p, test::ring_allreduce, 4096);
  const double base = simulate(p, src, dyadic()).time_s;
  for (bool skew : {true, false}) {
    NetworkParams net = dyadic();
    (skew ? net.skew_s : net.noise_s) = 5e-6;
    const double a = simulate(p, src, net).time_s;
    EXPECT_EQ(simulate(p, src, net).time_s, a) << "same seed, same result";
    EXPECT_GT(a, base);
    net.seed = 2;
    EXPECT_NE(simulate(p, src, net).time_s, a) << "another seed, another draw";
  }
}

TEST(SimStall, MutualReceivesReportBothRanks) {
  auto src = make_source(2, [](ScheduleBuilder& b, int r, int) {
    b.step();
    b.recv(1 - r, {kOutput, 0, 10});
  });
  try {
    simulate(2, src, dyadic());
    FAIL() << "no stall reported";
  } catch (const StallError& e) {
    const std::vector<Wait> want = {{0, 0, 1, WaitReason::no_matching_send},
                                    {1, 0, 0, WaitReason::no_matching_send}};
    EXPECT_EQ(e.waits, want);
    EXPECT_NE(std::string(e.what()).find("rank 0 at step 0 waits for a message from rank 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(SimStall, AStuckRankBlocksItsLaterPeersAndAnUnreceivedSendBlocksItsSender) {
  // Step 0: rank 0 waits for rank 1, which sends nothing; rank 2 sends to
  // rank 3, which never receives. Step 1: rank 1 sends to rank 0, stuck in
  // step 0; rank 3 receives from rank 2, stuck too.
  auto src = make_source(4, [](ScheduleBuilder& b, int r, int) {
    b.step();
    if (r == 0) b.recv(1, {kOutput, 0, 10});
    if (r == 2) b.send(3, {kInput, 0, 10});
    b.step();
    if (r == 1) b.send(0, {kInput, 0, 10});
    if (r == 0) b.recv(1, {kOutput, 0, 10});
    if (r == 3) b.recv(2, {kOutput, 0, 10});
    if (r == 2) b.send(3, {kInput, 0, 10});
  });
  try {
    simulate(4, src, dyadic());
    FAIL() << "no stall reported";
  } catch (const StallError& e) {
    const std::vector<Wait> want = {{0, 0, 1, WaitReason::no_matching_send},
                                    {1, 1, 0, WaitReason::peer_stalled},
                                    {2, 0, 3, WaitReason::no_matching_recv},
                                    {3, 1, 2, WaitReason::peer_stalled}};
    EXPECT_EQ(e.waits, want) << e.what();
  }
}

TEST(SimStall, AreFoundAcrossWindows) {
  // The ring's 5 healthy steps, then a receive nobody serves, in a later window.
  const int p = 3;
  auto src = make_source(p, [](ScheduleBuilder& b, int r, int q) {
    test::ring_allreduce(b, r, q);
    b.step();
    if (r == 2) b.recv(0, {kOutput, 0, 1});
  });
  SimOptions opt;
  opt.window_steps = 2;
  try {
    simulate(p, src, dyadic(), opt);
    FAIL() << "no stall reported";
  } catch (const StallError& e) {
    ASSERT_EQ(e.waits.size(), 1u);
    EXPECT_EQ(e.waits[0], (Wait{2, 5, 0, WaitReason::no_matching_send}));
  }
}

}  // namespace
}  // namespace cb::sim
