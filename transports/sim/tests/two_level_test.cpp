// Pricing by level (models/two_level.hpp) against the simulator: the one
// function predict, fit and recommend price two-level layouts with must be
// the simulator's closed form (its exact fast path) and give the
// discrete-event simulation's time exactly: every hierarchical algorithm on
// its own layout in both timing models, and the flat algorithms named below
// in the round-synchronous one.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "algorithms/hierarchical/compose.hpp"
#include "models/predict.hpp"
#include "models/two_level.hpp"
#include "transports/sim/fast_path.hpp"
#include "transports/sim/simulator.hpp"

namespace cb::sim {
namespace {

// Powers of two: every sum of them in these tests is exact in double, so
// "equal" means bit for bit whatever order the DES adds them in. `gap`: the
// network's LogGP gap (negative: single port).
NetworkParams two_level_net(bool rounds, int k, double gap = -1) {
  NetworkParams n;
  n.network_gap_s = gap;
  n.alpha_s = 0x1p-20;
  n.beta_s_per_B = 0x1p-33;
  n.gamma_s_per_B = 0x1p-34;
  n.round_synchronous = rounds;
  n.ranks_per_node = k;
  n.intra_alpha_s = 0x1p-23;
  n.intra_beta_s_per_B = 0x1p-37;
  return n;
}

models::ModelParams model_of(const NetworkParams& n) {
  models::ModelParams m{n.alpha_s, n.beta_s_per_B, n.gamma_s_per_B};
  m.intra_alpha_s = n.intra_alpha_s;
  m.intra_beta_s_per_B = n.intra_beta_s_per_B;
  m.network_gap_s = n.network_gap_s;
  return m;
}

double des_s(const AlgorithmEntry& e, const CollParams& params, const NetworkParams& net) {
  SimOptions o;
  o.fast_path = false;
  return simulate(e, params, net, o).time_s;
}

CollParams at(Collective coll, int nodes, int k, std::size_t count) {
  CollParams params;
  params.coll = coll;
  params.p = nodes * k;
  params.count = count;
  params.ranks_per_node = k;
  return params;
}

TEST(TwoLevelPricing, HierarchicalIsTheFastPathAndTheDes) {
  for (Collective coll : kAllCollectives) {
    int checked = 0;
    for (const std::string& name : all_composite_names(coll)) {
      const AlgorithmEntry& e = find_algorithm(coll, name);
      for (auto [nodes, k] : {std::pair{2, 2}, std::pair{3, 2}, std::pair{2, 4}})
        for (std::size_t count : {std::size_t{5}, std::size_t{96}})
          for (bool rounds : {false, true})
            for (double gap : {-1.0, 0x1p-22}) {
              const CollParams params = at(coll, nodes, k, count);
              const NetworkParams net = two_level_net(rounds, k, gap);
              const std::string where = fmt::format("{} {}x{} count={} {} gap={}", name, nodes, k,
                                                    count, rounds ? "rounds" : "async", gap);
              const double priced = models::level_seconds(e, params, model_of(net));
              // The same function, whatever the timing model.
              EXPECT_EQ(closed_form_seconds(e, params, net), priced) << where;
              const SimResult fast = simulate(e, params, net);
              if (!fast.from_cost) continue;  // a phase with slack (dbtree): the DES can be faster
              EXPECT_EQ(fast.time_s, priced) << where;
              EXPECT_EQ(des_s(e, params, net), priced) << where;
              ++checked;
            }
    }
    EXPECT_GT(checked, 60) << to_string(coll);
  }
}

// Flat algorithms whose every step has at most one rank critical on both
// of its ports, so the round-synchronous DES is their walk exactly on any of
// these layouts.
TEST(TwoLevelPricing, FlatAlgorithmsAreTheRoundSynchronousDes) {
  const std::vector<std::pair<Collective, std::string>> flat = {
      {Collective::allreduce, "ring"},        {Collective::allreduce, "rhd"},
      {Collective::allreduce, "butterfly"},   {Collective::allreduce, "tree"},
      {Collective::reduce_scatter, "ring"},   {Collective::reduce_scatter, "pairwise"},
      {Collective::allgather, "ring"},        {Collective::allgather, "bruck"},
      {Collective::alltoall, "pairwise"},     {Collective::alltoall, "bruck"},
  };
  for (const auto& [coll, name] : flat) {
    const AlgorithmEntry& e = find_algorithm(coll, name);
    for (auto [nodes, k] : {std::pair{2, 2}, std::pair{3, 2}, std::pair{2, 4}, std::pair{4, 2}})
      for (std::size_t count : {std::size_t{8}, std::size_t{1000}})
        for (double gap : {-1.0, 0x1p-22}) {
          const CollParams params = at(coll, nodes, k, count);
          const NetworkParams net = two_level_net(true, k, gap);
          ASSERT_TRUE(models::level_walks_schedules(e, params, model_of(net)));
          EXPECT_EQ(des_s(e, params, net), models::level_seconds(e, params, model_of(net)))
              << fmt::format("{}/{} {}x{} count={} gap={}", to_string(coll), name, nodes, k, count,
                             gap);
        }
  }
}

// By hand: ring all-reduce on 2 nodes x 2 ranks, 4 fp32 (blocks of 4 B).
// Every step has one message across the node boundary (rank 1 -> 2 or 3 -> 0),
// so each of the 6 steps costs the network's alpha + 4 beta; the 3
// reduce-scatter steps add 4 B reduced each.
TEST(TwoLevelPricing, RingCrossesTheNetworkEveryStep) {
  const AlgorithmEntry& ring = find_algorithm(Collective::allreduce, "ring");
  const NetworkParams net = two_level_net(true, 2);
  const CollParams params = at(Collective::allreduce, 2, 2, 4);
  const double expected =
      6 * (net.alpha_s + 4 * net.beta_s_per_B) + 3 * 4 * net.gamma_s_per_B;
  EXPECT_EQ(models::level_seconds(ring, params, model_of(net)), expected);
  // One level (no intra-node alpha, beta): the closed form, unchanged.
  models::ModelParams one{net.alpha_s, net.beta_s_per_B, net.gamma_s_per_B};
  EXPECT_EQ(models::level_seconds(ring, params, one),
            models::seconds(closed_form_cost(ring, params), one));
  // One node: every message at the intra-node level.
  CollParams node = params;
  node.ranks_per_node = 4;
  EXPECT_EQ(models::level_seconds(ring, node, model_of(net)),
            6 * (net.intra_alpha_s + 4 * net.intra_beta_s_per_B) + 3 * 4 * net.gamma_s_per_B);
}

// Contention by hand: a host's ranks share its one link (models/
// node_links.hpp). Pairwise all-to-all on 2 nodes x 2 ranks, 4 fp32 per peer
// (16 B blocks), pairs r with r XOR i: round 1 stays inside the nodes, rounds
// 2 and 3 send both ranks of each node across at once, so each node's egress
// and ingress carry 32 B in those rounds: alpha + 32 beta, where one port per
// rank would give alpha + 16 beta. The DES, round-synchronous and not, agrees.
TEST(TwoLevelPricing, RanksOfANodeShareItsLink) {
  const AlgorithmEntry& pw = find_algorithm(Collective::alltoall, "pairwise");
  const CollParams params = at(Collective::alltoall, 2, 2, 4);
  for (bool rounds : {true, false}) {
    const NetworkParams net = two_level_net(rounds, 2);
    const double expected = (net.intra_alpha_s + 16 * net.intra_beta_s_per_B) +
                            2 * (net.alpha_s + 32 * net.beta_s_per_B);
    EXPECT_EQ(models::level_seconds(pw, params, model_of(net)), expected);
    EXPECT_EQ(des_s(pw, params, net), expected) << (rounds ? "rounds" : "async");
  }
}

// The gap by hand: naive all-to-all on 3 nodes x 1 rank, 4 fp32 per peer
// (16 B blocks), sends each rank's two blocks across in one step. With a
// single port the second waits for the first's alpha: 2 (alpha + 16 beta).
// With gap g the port holds each g + 16 beta and the second arrives
// alpha - g after it left: alpha + g + 32 beta, which the node links (32 B
// on each egress and ingress: alpha + 32 beta) do not exceed. The DES,
// round-synchronous and not, agrees; with one rank per node and no gap the
// closed form prices it.
TEST(TwoLevelPricing, AGapOverlapsARanksNetworkLatencies) {
  const AlgorithmEntry& naive = find_algorithm(Collective::alltoall, "naive");
  const CollParams params = at(Collective::alltoall, 3, 1, 4);
  for (bool rounds : {true, false}) {
    const NetworkParams single = two_level_net(rounds, 1);
    EXPECT_FALSE(models::level_walks_schedules(naive, params, model_of(single)));
    EXPECT_EQ(models::level_seconds(naive, params, model_of(single)),
              2 * (single.alpha_s + 16 * single.beta_s_per_B));
    const NetworkParams gap = two_level_net(rounds, 1, 0x1p-22);
    const double expected = gap.alpha_s + gap.network_gap_s + 32 * gap.beta_s_per_B;
    EXPECT_TRUE(models::level_walks_schedules(naive, params, model_of(gap)));
    EXPECT_EQ(models::level_seconds(naive, params, model_of(gap)), expected);
    EXPECT_EQ(des_s(naive, params, gap), expected) << (rounds ? "rounds" : "async");
  }
}

// A gap is the network level's: above alpha, or without ranks per node
// (one level), the simulator refuses it in one line.
TEST(TwoLevelPricing, AGapIsPartOfTheNetworksAlpha) {
  NetworkParams net = two_level_net(true, 2, 0x1p-19);
  EXPECT_THROW(validate(net), UsageError);
  net = two_level_net(true, 0, 0x1p-22);
  EXPECT_THROW(validate(net), UsageError);
  EXPECT_NO_THROW(validate(two_level_net(true, 2, 0)));
}

// hier2d:ring/ring all-reduce on 3 nodes x 2 ranks, 96 fp32: the two lanes
// run ring all-reduces of 48 elements (blocks of 16 fp32, 64 B) across the
// 3 nodes at once, so each of their 4 steps puts two 64 B blocks on every
// node's link: alpha + 128 beta a step, plus 64 B reduced in the first 2;
// the intra-node phases keep their closed form at the node's alpha, beta.
TEST(TwoLevelPricing, LanesShareTheNodeLink) {
  const AlgorithmEntry& h = find_algorithm(Collective::allreduce, "hier2d:ring/ring");
  const CollParams params = at(Collective::allreduce, 3, 2, 96);
  const NetworkParams net = two_level_net(true, 2);
  const TwoLevelCost c = two_level_cost(*h.composition, params);
  const double intra = net.intra_alpha_s * c.intra.alpha + net.intra_beta_s_per_B * c.intra.beta +
                       net.gamma_s_per_B * c.intra.gamma;
  const double inter = 4 * (net.alpha_s + 128 * net.beta_s_per_B) + 2 * 64 * net.gamma_s_per_B;
  EXPECT_EQ(models::level_seconds(h, params, model_of(net)), intra + inter);
  // One lane's own closed form, the price without a shared link, is lower.
  EXPECT_EQ(c.inter.beta, 4 * 64);
  EXPECT_LT(intra + net.alpha_s * c.inter.alpha + net.beta_s_per_B * c.inter.beta +
                net.gamma_s_per_B * c.inter.gamma,
            intra + inter);
  EXPECT_EQ(des_s(h, params, net), intra + inter);
}

// Asynchronous, lanes whose intra-node phase lets the node's ranks leave it
// apart (linear ps on 4 ranks) do not enter the shared link together: the
// fast path leaves them to the DES, which is then faster than the price.
TEST(TwoLevelPricing, LanesThatDesynchroniseTakeTheDes) {
  const AlgorithmEntry& h = find_algorithm(Collective::allreduce, "hier2d:ps/ring");
  const CollParams params = at(Collective::allreduce, 2, 4, 96);
  const NetworkParams async = two_level_net(false, 4);
  EXPECT_FALSE(cost_is_exact(h, params, async));
  EXPECT_LT(des_s(h, params, async), models::level_seconds(h, params, model_of(async)));
  EXPECT_TRUE(cost_is_exact(h, params, two_level_net(true, 4)));
}

// predict's pricing is level_seconds on the scenario's layout, and the
// hierarchical schedule it prices wins where the network is slow: with a
// network 8x slower per byte, hier2d:ring/ring beats flat ring at a large
// size on 4 nodes x 4 and loses to it at 8 B, where it pays more rounds.
TEST(TwoLevelPricing, PredictFindsTheHierarchicalCrossover) {
  models::Scenario s;
  s.coll = Collective::allreduce;
  s.p = 16;
  s.ranks_per_node = 4;
  models::ModelParams m{1e-5, 8e-10, 1e-11};
  m.intra_alpha_s = 1e-6;
  m.intra_beta_s_per_B = 1e-10;
  const AlgorithmEntry& ring = find_algorithm(Collective::allreduce, "ring");
  const AlgorithmEntry& hier = find_algorithm(Collective::allreduce, "hier2d:ring/ring");
  const CollParams big = models::coll_params(s, 1 << 20);
  EXPECT_EQ(models::predict_seconds(hier, s, 1 << 20, m), models::level_seconds(hier, big, m));
  EXPECT_LT(models::predict_seconds(hier, s, 1 << 20, m), models::predict_seconds(ring, s, 1 << 20, m));
  const AlgorithmEntry& rhd = find_algorithm(Collective::allreduce, "rhd");
  EXPECT_GT(models::predict_seconds(hier, s, 2, m), models::predict_seconds(rhd, s, 2, m));
}

TEST(TwoLevelPricing, FlatWalkRefusesAboveItsLimit) {
  const AlgorithmEntry& ring = find_algorithm(Collective::allreduce, "ring");
  models::ModelParams m{1e-5, 1e-9, 1e-11};
  m.intra_alpha_s = 1e-6;
  m.intra_beta_s_per_B = 1e-10;
  CollParams params = at(Collective::allreduce, 2 * models::kMaxLevelRanks / 8, 8, 64);
  EXPECT_THROW((void)models::level_seconds(ring, params, m), UsageError);
  // Hierarchical algorithms walk one lane's schedules only: 1024 nodes of
  // any size, not 1025.
  const AlgorithmEntry& hier = find_algorithm(Collective::allreduce, "hier2d:ring/ring");
  params = at(Collective::allreduce, models::kMaxLevelRanks, 8, 8192);
  EXPECT_GT(models::level_seconds(hier, params, m), 0);
  params = at(Collective::allreduce, models::kMaxLevelRanks + 1, 2, 8192);
  EXPECT_THROW((void)models::level_seconds(hier, params, m), UsageError);
}

}  // namespace
}  // namespace cb::sim
