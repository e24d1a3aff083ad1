#include "transports/sim/fast_path.hpp"

#include "algorithms/common/partition.hpp"
#include "algorithms/hierarchical/compose.hpp"
#include "models/two_level.hpp"

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
  return true;
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
    q.ranks_per_node = net.ranks_per_node;
  }
  return models::level_seconds(algo, q, m);
}

}  // namespace cb::sim
