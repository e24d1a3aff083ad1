#include "transports/sim/fast_path.hpp"

#include "algorithms/common/partition.hpp"
#include "algorithms/hierarchical/compose.hpp"
#include "models/two_level.hpp"
#include "transports/sim/simulator.hpp"

namespace cb::sim {

bool async_may_beat_cost(const AlgorithmEntry& algo, int p) {
  return algo.cost_slack == CostSlack::always ||
         (algo.cost_slack == CostSlack::async_unless_pow2 && !is_pow2(p));
}

bool rounds_may_beat_cost(const AlgorithmEntry& algo) {
  return algo.cost_slack == CostSlack::always;
}

namespace {

bool exact_for(const AlgorithmEntry& algo, int p, const NetworkParams& net) {
  return net.round_synchronous ? !rounds_may_beat_cost(algo) : !async_may_beat_cost(algo, p);
}

// Asynchronous: where several lanes share each node's link in an inter-node
// phase, its price assumes they enter it together (their transfers start at
// once on the link). They do when every intra-node phase lets the node's
// ranks leave it at one time: checked by simulating one node's phase (K
// ranks, cheap). An intra phase with ranks that finish apart (linear ps with
// K > 2) lets the first lane's bytes through the link alone for a while, and
// the DES is then faster than the price.
bool lanes_stay_together(const Composition& c, const CollParams& params, const NetworkParams& net) {
  const std::vector<LevelPhase> phases = level_phases(c, params);
  bool shared = false;
  for (const LevelPhase& ph : phases) shared = shared || (ph.inter_node && ph.groups > 1);
  if (!shared) return true;
  NetworkParams node;  // one node: its messages at the intra-node alpha, beta
  node.alpha_s = net.intra_alpha_s;
  node.beta_s_per_B = net.intra_beta_s_per_B;
  node.gamma_s_per_B = net.gamma_s_per_B;
  for (const LevelPhase& ph : phases) {
    if (ph.inter_node || ph.sub.p < 2 || ph.sub.count == 0) continue;
    SimOptions o;
    o.arrival_s.assign(static_cast<std::size_t>(ph.sub.p), 0.0);  // every finish time back
    const SimResult r = simulate(*ph.algo, ph.sub, node, o);
    for (double f : r.finish_s)
      if (f != r.finish_s.front()) return false;
  }
  return true;
}

// A composed algorithm on a two-level network of its own layout: every phase
// runs inside nodes only or across nodes only, every node (and every lane)
// runs the same sub-schedule at the same time, so each phase costs its
// closed form at its level's alpha, beta, and the phases add up.
bool two_level_exact(const AlgorithmEntry& algo, const CollParams& params,
                     const NetworkParams& net) {
  if (algo.composition == nullptr || net.ranks_per_node <= 0 ||
      params.ranks_per_node != net.ranks_per_node || params.p % net.ranks_per_node != 0)
    return false;
  for (const PhaseAlgorithm& ph : phase_algorithms(*algo.composition, params))
    if (!exact_for(*ph.algo, ph.group_size, net)) return false;
  return net.round_synchronous || lanes_stay_together(*algo.composition, params, net);
}

}  // namespace

bool cost_is_exact(const AlgorithmEntry& algo, const CollParams& params, const NetworkParams& net) {
  if (net.overhead_s != 0 || net.skew_s != 0 || net.noise_s != 0) return false;
  if (net.ranks_per_node == 0) return exact_for(algo, params.p, net);
  return two_level_exact(algo, params, net);
}

double estimated_events(const AlgorithmEntry& algo, const CollParams& params) {
  return closed_form_cost(algo, params).alpha * params.p;
}

double predicted_wall_s(const AlgorithmEntry& algo, const CollParams& params,
                        const NetworkParams& net, bool fast_path) {
  // About 10 M events/s end to end (README), and a cost walk in microseconds.
  if (fast_path && cost_is_exact(algo, params, net)) return 2e-6 + params.p * 1e-9;
  // Start-up: window threads and buffers, about 0.3 ms.
  return 3e-4 + estimated_events(algo, params) * 1e-7;
}

double closed_form_seconds(const AlgorithmEntry& algo, const CollParams& params,
                           const NetworkParams& net) {
  models::ModelParams m{net.alpha_s, net.beta_s_per_B, net.gamma_s_per_B};
  CollParams q = params;
  if (net.ranks_per_node > 0) {  // messages cross the network's levels, not the schedule's
    m.intra_alpha_s = net.intra_alpha_s;
    m.intra_beta_s_per_B = net.intra_beta_s_per_B;
    m.network_gap_s = net.network_gap_s;
    q.ranks_per_node = net.ranks_per_node;
  }
  return models::level_seconds(algo, q, m);
}

}  // namespace cb::sim
