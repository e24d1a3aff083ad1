#include "harness/sweep/case_work.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/hierarchical/compose.hpp"
#include "algorithms/registry.hpp"
#include "transports/contract/row.hpp"

namespace cb {
namespace {
constexpr double kAlpha = 5e-6, kBeta = 2e-10, kGamma = 1e-10;
}  // namespace

double predicted_iteration_s(const Case& c) {
  CollParams params{c.coll,     c.ranks,         0, c.count, c.dtype, c.op,
                    c.in_place, c.segment_bytes, c.ranks_per_node};
  const auto table = algorithms_for(c.coll);
  const AlgorithmEntry* algo = nullptr;
  for (const AlgorithmEntry& e : table)
    if (e.name == c.algorithm) algo = &e;
  if (!algo && is_composite_name(c.algorithm)) algo = &find_algorithm(c.coll, c.algorithm);
  // A library baseline: price it as the registry's kPricesBaselines row.
  if (!algo) algo = &baseline_price_entry(c.coll);
  const Cost cost = closed_form_cost(*algo, params);
  return kAlpha * std::max(1.0, cost.alpha) + kBeta * cost.beta + kGamma * cost.gamma;
}

double predicted_measured_case_s(const Case& c, const SamplingPlan& s) {
  const double t = predicted_iteration_s(c);
  double samples = s.iterations;
  if (samples <= 0) {
    samples = std::clamp(s.budget_s / t, static_cast<double>(s.min_iterations),
                         static_cast<double>(std::max(s.min_iterations, s.max_iterations)));
  }
  // Setup (buffers, group) and verification touch every byte a few times.
  const double setup = 1e-3 + (s.verify ? 2e-9 * static_cast<double>(c.bytes()) : 0.0);
  return (s.warmup + samples) * t + setup;
}

std::vector<double> predicted_work(const Plan& plan, const std::unordered_set<std::string>& done) {
  std::vector<double> work;
  const TransportSpec& t = *plan.transport;
  for (const RankBlock& block : plan.blocks)
    for (const Case& c : block.cases) {
      if (done.count(case_key(c)) != 0) continue;
      work.push_back(t.predict_wall_s ? t.predict_wall_s(c, plan.sampling)
                                      : predicted_measured_case_s(c, plan.sampling));
    }
  return work;
}

}  // namespace cb
