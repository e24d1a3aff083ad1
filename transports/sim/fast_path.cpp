#include "transports/sim/fast_path.hpp"

#include "algorithms/common/partition.hpp"

namespace cb::sim {

bool async_may_beat_cost(const AlgorithmEntry& algo, int p) {
  if (algo.coll == Collective::allreduce && algo.name == "dbtree") return true;
  if (algo.coll == Collective::reduce_scatter && algo.name == "butterfly") return !is_pow2(p);
  return false;
}

bool rounds_may_beat_cost(const AlgorithmEntry& algo) {
  return algo.coll == Collective::allreduce && algo.name == "dbtree";
}

bool cost_is_exact(const AlgorithmEntry& algo, const CollParams& params, const NetworkParams& net) {
  const bool plain = net.overhead_s == 0 && net.ranks_per_node == 0 && net.skew_s == 0 &&
                     net.noise_s == 0;
  return plain && (net.round_synchronous ? !rounds_may_beat_cost(algo)
                                         : !async_may_beat_cost(algo, params.p));
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
  const Cost c = closed_form_cost(algo, params);
  return net.alpha_s * c.alpha + net.beta_s_per_B * c.beta + net.gamma_s_per_B * c.gamma;
}

}  // namespace cb::sim
