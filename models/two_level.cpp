#include "models/two_level.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "algorithms/hierarchical/compose.hpp"
#include "algorithms/schedule_cost.hpp"

namespace cb::models {

namespace {

bool priced_by_level(const CollParams& params, const ModelParams& m) {
  return m.two_level() && params.ranks_per_node > 0 && params.p > 1 && params.count > 0;
}

// One global step of every rank, each message at its level's alpha, beta.
double step_seconds(std::span<const Schedule> all, std::size_t i, int k, const ModelParams& m) {
  const auto cost = [&](int a, int b, std::size_t elements, double esize) {
    const double n = static_cast<double>(elements) * esize;
    return a / k == b / k ? m.intra_alpha_s + n * m.intra_beta_s_per_B
                          : m.alpha_s + n * m.beta_s_per_B;
  };
  double slowest = 0;
  for (const Schedule& s : all) {
    if (i >= s.steps.size()) continue;
    const Step& st = s.steps[i];
    const double esize = static_cast<double>(element_size(s.dtype));
    double out = 0, in = 0;
    std::size_t reduced = 0;
    for (const Send& x : st.sends) out += cost(s.rank, x.peer, x.src.count, esize);
    for (const Recv& x : st.recvs) {
      in += cost(x.peer, s.rank, x.dst.count, esize);
      if (x.mode == RecvMode::reduce) reduced += x.dst.count;
    }
    for (const Local& x : st.locals)
      if (x.kind == LocalKind::reduce) reduced += x.dst.count;
    slowest = std::max(slowest, std::max(out, in) + m.gamma_s_per_B * static_cast<double>(reduced) * esize);
  }
  return slowest;
}

double walked_seconds(const AlgorithmEntry& algo, const CollParams& params, const ModelParams& m) {
  if (params.p > kMaxLevelRanks)
    throw UsageError(fmt::format("{} on two levels is priced from every rank's schedule: {} ranks "
                                 "is above {} (hierarchical algorithms have no such limit)",
                                 algo.name, params.p, kMaxLevelRanks));
  const std::vector<Schedule> all = make_all_schedules(algo, params);
  std::size_t steps = 0;
  for (const Schedule& s : all) steps = std::max(steps, s.steps.size());
  double total = 0;
  for (std::size_t i = 0; i < steps; ++i) total += step_seconds(all, i, params.ranks_per_node, m);
  return total;
}

}  // namespace

bool level_walks_schedules(const AlgorithmEntry& algo, const CollParams& params,
                           const ModelParams& m) {
  return priced_by_level(params, m) && algo.composition == nullptr &&
         params.ranks_per_node > 1 && params.ranks_per_node < params.p;
}

double level_seconds(const AlgorithmEntry& algo, const CollParams& params, const ModelParams& m) {
  if (!priced_by_level(params, m)) return seconds(closed_form_cost(algo, params), m);
  if (algo.composition != nullptr) {
    // The simulator's closed form of a composition (its exact fast path):
    // keep this expression as it is, the DES is held equal to it bit for bit.
    const TwoLevelCost c = two_level_cost(*algo.composition, params);
    return m.intra_alpha_s * c.intra.alpha + m.intra_beta_s_per_B * c.intra.beta +
           m.alpha_s * c.inter.alpha + m.beta_s_per_B * c.inter.beta +
           m.gamma_s_per_B * (c.intra.gamma + c.inter.gamma);
  }
  if (params.ranks_per_node >= params.p)  // one node: every message intra-node
    return seconds(closed_form_cost(algo, params),
                   ModelParams{m.intra_alpha_s, m.intra_beta_s_per_B, m.gamma_s_per_B});
  if (params.ranks_per_node == 1) return seconds(closed_form_cost(algo, params), m);
  return walked_seconds(algo, params, m);
}

}  // namespace cb::models
