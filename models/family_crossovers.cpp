#include "models/family_crossovers.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "models/crossover.hpp"

namespace cb::models {
namespace {

bool on_two_level_layout(const Scenario& s) { return s.ranks_per_node > 1 && s.p > s.ranks_per_node; }

// One family's fastest measured row and fastest prediction at one size.
struct Fastest {
  const Measurement* row = nullptr;
  double predicted_s = std::numeric_limits<double>::infinity();
  void add(const Prediction& p) {
    if (!row || p.row->time_s < row->time_s) row = p.row;
    predicted_s = std::min(predicted_s, p.predicted_s);
  }
};

struct Sizes {
  // bytes -> (hierarchical, flat)
  std::map<std::uint64_t, std::pair<Fastest, Fastest>> at;
};

PairCrossover crossover_of(const GroupKey& g, const std::string& params, const Sizes& sizes) {
  std::vector<double> bytes, pred_h, pred_f;
  std::vector<TimeCI> meas_h, meas_f;
  for (const auto& [b, both] : sizes.at) {
    if (!both.first.row || !both.second.row) continue;
    bytes.push_back(static_cast<double>(b));
    meas_h.push_back(ci_of(*both.first.row));
    meas_f.push_back(ci_of(*both.second.row));
    pred_h.push_back(both.first.predicted_s);
    pred_f.push_back(both.second.predicted_s);
  }
  PairCrossover c;
  c.group = g;
  c.params = params;
  c.algo_a = kHierarchicalFamily;
  c.algo_b = kFlatFamily;
  if (bytes.size() < 2) return c;
  set_measured_crossings(c, bytes, meas_h, meas_f);
  for (const MeasuredCrossing& x : measured_crossings(bytes, pred_h, pred_f))
    c.predicted_B.push_back(three_digits(x.bytes));
  c.predicted_faster_below = pred_h.front() <= pred_f.front() ? c.algo_a : c.algo_b;
  if (!c.measured_B.empty()) judge_crossover(c, kTargetsHierarchical.crossover_factor);
  return c;
}

}  // namespace

std::vector<PairCrossover> family_crossovers(const Analysis& a) {
  std::map<std::pair<std::string, GroupKey>, Sizes> by;
  for (const Prediction& p : a.predictions) {
    if (p.params == kByConfig || !p.row->entry || p.row->bytes == 0 ||
        !on_two_level_layout(p.row->scenario))
      continue;
    auto& both = by[{p.params, group_of(*p.row)}].at[p.row->bytes];
    (p.row->entry->composition ? both.first : both.second).add(p);
  }
  std::vector<PairCrossover> out;
  for (const auto& [key, sizes] : by) {
    PairCrossover c = crossover_of(key.second, key.first, sizes);
    if (!c.measured_faster_below.empty()) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace cb::models
