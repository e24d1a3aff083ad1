// The exact fast path (fast_path.hpp) against the discrete-event simulation:
// wherever cost_is_exact() lets simulate() return the closed form, the DES
// must give the same time, for every registered algorithm at p = 1..64 and
// at sampled large p, in both the asynchronous and the round-synchronous
// model; and with any refinement on, simulate() must not take the fast path.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>

#include "algorithms/hierarchical/compose.hpp"
#include "transports/sim/fast_path.hpp"
#include "transports/sim/simulator.hpp"

namespace cb::sim {
namespace {

NetworkParams dyadic(bool rounds) {
  NetworkParams n;
  n.alpha_s = 0x1p-20;  // powers of two: sums of them are exact in double
  n.beta_s_per_B = 0x1p-33;
  n.gamma_s_per_B = 0x1p-34;
  n.round_synchronous = rounds;
  return n;
}

SimResult des(const AlgorithmEntry& e, const CollParams& params, const NetworkParams& net) {
  SimOptions o;
  o.fast_path = false;
  return simulate(e, params, net, o);
}

std::string where(const AlgorithmEntry& e, const CollParams& c, bool rounds) {
  return fmt::format("{}/{} p={} count={} {}", to_string(e.coll), e.name, c.p, c.count,
                     rounds ? "rounds" : "async");
}

void expect_agree(const AlgorithmEntry& e, const CollParams& params, bool rounds, int& checked) {
  const NetworkParams net = dyadic(rounds);
  const SimResult fast = simulate(e, params, net);
  EXPECT_EQ(fast.from_cost, cost_is_exact(e, params, net)) << where(e, params, rounds);
  if (!fast.from_cost) return;
  EXPECT_EQ(fast.messages, 0u);
  EXPECT_EQ(fast.time_s, des(e, params, net).time_s) << where(e, params, rounds);
  ++checked;
}

TEST(SimFastPath, EqualsTheDesForEveryAlgorithmUpTo64Ranks) {
  for (const AlgorithmEntry* e : all_algorithms()) {
    int checked = 0;
    for (int p = 1; p <= 64; ++p)
      for (std::size_t count : {std::size_t{1}, std::size_t{3}, static_cast<std::size_t>(p) + 1,
                                std::size_t{1000}})
        for (bool rounds : {false, true}) {
          CollParams params;
          params.coll = e->coll;
          params.p = p;
          params.count = count;
          params.segment_bytes = count == 1000 && p % 7 == 0 ? 256 : 0;  // pipelined variants too
          expect_agree(*e, params, rounds, checked);
        }
    if (!rounds_may_beat_cost(*e)) {  // dbtree only ever takes the DES
      EXPECT_GT(checked, 64) << e->name << ": the fast path must apply to every algorithm somewhere";
    }
  }
}

TEST(SimFastPath, EqualsTheDesAtSampledLargeRankCounts) {
  for (const AlgorithmEntry* e : all_algorithms()) {
    int checked = 0;
    for (int p : {96, 127, 1000, 4096}) {
      CollParams params;
      params.coll = e->coll;
      params.p = p;
      params.count = e->coll == Collective::allreduce ? 100'003 : 37;
      if (closed_form_cost(*e, params).alpha * p > 1.5e5) continue;  // O(p^2) messages: too slow here
      for (bool rounds : {false, true}) expect_agree(*e, params, rounds, checked);
    }
    if (!rounds_may_beat_cost(*e)) {
      EXPECT_GT(checked, 0) << e->name;
    }
  }
}

TEST(SimFastPath, RealisticParametersAgreeToRounding) {
  NetworkParams net;  // defaults: 2 us, 10 GB/s, 20 GB/s, not dyadic
  for (const AlgorithmEntry* e : all_algorithms()) {
    CollParams params;
    params.coll = e->coll;
    params.p = 24;
    params.count = 4097;
    const SimResult fast = simulate(*e, params, net);
    if (!fast.from_cost) continue;
    const double t = des(*e, params, net).time_s;
    EXPECT_NEAR(fast.time_s, t, 1e-12 * t) << e->name;
  }
}

TEST(SimFastPath, AnyRefinementOrSlackKeepsTheDes) {
  const AlgorithmEntry& ring = find_algorithm(Collective::allreduce, "ring");
  CollParams params;
  params.p = 8;
  params.count = 64;
  NetworkParams net;
  EXPECT_TRUE(simulate(ring, params, net).from_cost);
  for (int which = 0; which < 4; ++which) {
    NetworkParams n = net;
    if (which == 0) n.overhead_s = 1e-7;
    if (which == 1) n.ranks_per_node = 4;
    if (which == 2) n.skew_s = 1e-6;
    if (which == 3) n.noise_s = 1e-6;
    const SimResult r = simulate(ring, params, n);
    EXPECT_FALSE(r.from_cost) << which;
    EXPECT_GT(r.messages, 0u) << which;
  }
  const AlgorithmEntry& dbtree = find_algorithm(Collective::allreduce, "dbtree");
  EXPECT_FALSE(simulate(dbtree, params, net).from_cost);
  NetworkParams rounds = net;
  rounds.round_synchronous = true;
  EXPECT_FALSE(simulate(dbtree, params, rounds).from_cost);
  EXPECT_TRUE(simulate(ring, params, rounds).from_cost);
  SimOptions forced;
  forced.fast_path = false;
  EXPECT_FALSE(simulate(ring, params, net, forced).from_cost);
  const AlgorithmEntry& rs_butterfly = find_algorithm(Collective::reduce_scatter, "butterfly");
  params.coll = Collective::reduce_scatter;
  EXPECT_TRUE(simulate(rs_butterfly, params, net).from_cost);
  params.p = 6;
  EXPECT_FALSE(simulate(rs_butterfly, params, net).from_cost);
}

// Two levels: a hierarchical algorithm composed on the network's own layout
// (--ranks-per-node K dividing p) takes the fast path, its intra-node phases
// priced with the intra-node alpha, beta and the rest with the inter-node
// ones, and the DES gives exactly that time.
NetworkParams two_level(bool rounds, int k) {
  NetworkParams n = dyadic(rounds);
  n.ranks_per_node = k;
  n.intra_alpha_s = 0x1p-23;
  n.intra_beta_s_per_B = 0x1p-37;
  return n;
}

TEST(SimFastPath, TwoLevelHierarchicalEqualsTheDes) {
  for (Collective coll : kAllCollectives) {
    const std::vector<std::string> names = all_composite_names(coll);
    int checked = 0;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const AlgorithmEntry& e = find_algorithm(coll, names[i]);
      for (auto [nodes, k] : {std::pair{2, 2}, std::pair{3, 4}, std::pair{4, 3}})
        for (std::size_t count : {std::size_t{1}, std::size_t{13}, std::size_t{1000}}) {
          if ((i + static_cast<std::size_t>(nodes) + count) % 3 != 0) continue;  // rotate, for time
          for (bool rounds : {false, true}) {
            CollParams params;
            params.coll = coll;
            params.p = nodes * k;
            params.count = count;
            params.ranks_per_node = k;
            const NetworkParams net = two_level(rounds, k);
            const SimResult fast = simulate(e, params, net);
            const std::string at = fmt::format("{} {}x{} count={} {}", e.name, nodes, k, count,
                                               rounds ? "rounds" : "async");
            EXPECT_EQ(fast.from_cost, cost_is_exact(e, params, net)) << at;
            if (!fast.from_cost) continue;
            EXPECT_EQ(fast.time_s, des(e, params, net).time_s) << at;
            ++checked;
          }
        }
    }
    EXPECT_GT(checked, 40) << to_string(coll);
  }
}

TEST(SimFastPath, TwoLevelClosedFormPricesEachLevel) {
  // hier2d:ring/ring, 4 nodes x 4, n = 4096 fp32 (16 KiB): ring reduce-scatter
  // and all-gather inside the node on 4 KiB blocks, ring all-reduce across
  // nodes on 4 KiB (1 KiB blocks) in each of the 4 lanes at once, which
  // share each node's link: 4 KiB on it per step.
  const AlgorithmEntry& e = find_algorithm(Collective::allreduce, "hier2d:ring/ring");
  CollParams params;
  params.p = 16;
  params.count = 4096;
  params.ranks_per_node = 4;
  const NetworkParams net = two_level(false, 4);
  const double intra = 6 * (net.intra_alpha_s + 4096 * net.intra_beta_s_per_B);
  const double inter = 6 * (net.alpha_s + 4 * 1024 * net.beta_s_per_B);
  const double gamma = (3 * 4096 + 3 * 1024) * net.gamma_s_per_B;
  EXPECT_EQ(closed_form_seconds(e, params, net), intra + inter + gamma);
  EXPECT_TRUE(simulate(e, params, net).from_cost);
  // A layout other than the network's, an uneven one, or a flat algorithm on
  // two levels: the DES.
  params.ranks_per_node = 2;
  EXPECT_FALSE(simulate(e, params, net).from_cost);
  params.ranks_per_node = 4;
  params.p = 14;
  EXPECT_FALSE(simulate(find_algorithm(Collective::allreduce, "hier:tree/ring"), params, net)
                   .from_cost);
  params.p = 16;
  EXPECT_FALSE(simulate(find_algorithm(Collective::allreduce, "ring"), params, net).from_cost);
}

}  // namespace
}  // namespace cb::sim
