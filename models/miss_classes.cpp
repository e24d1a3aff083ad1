#include "models/miss_classes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "algorithms/types.hpp"
#include "models/csv_text.hpp"

namespace cb::models {

namespace {

// Whether the model's T_a / T_b lies inside the measured ratio's interval.
bool ratio_within_ci(const SideAtSize& a, const SideAtSize& b) {
  const double ratio = a.predicted_s / b.predicted_s;
  return a.ci_lo_s / b.ci_hi_s <= ratio && ratio <= a.ci_hi_s / b.ci_lo_s;
}

// A row of one configuration at one size: (configuration, bytes).
using RowKey = std::pair<ConfigKey, std::uint64_t>;

// The first member of a crossover group ("butterfly=rhd" -> "butterfly").
std::string first_member(const std::string& group) { return group.substr(0, group.find('=')); }

ConfigKey member_key(const PairCrossover& c, const std::string& algorithm) {
  const GroupKey& g = c.group;
  return {g.transport, g.coll, algorithm, g.dtype, g.op, g.placement, g.ranks, ""};
}

// The figures of a, b and the model at `level`, by row; a later row of the
// same key replaces an earlier one (the file's last measurement counts).
struct Index {
  std::map<RowKey, const Measurement*> measured;
  std::map<RowKey, double> rounds;
  std::map<std::pair<std::string, RowKey>, double> predicted_s;

  Index(const Analysis& a, const ResultsFile& results, const std::vector<LinkRow>& links) {
    for (const Measurement& m : results.rows) measured[{config_key(m), m.bytes}] = &m;
    for (const LinkRow& l : links) rounds[{config_key(*l.row), l.row->bytes}] = l.rounds;
    for (const Prediction& p : a.predictions)
      predicted_s[{p.params, {config_key(*p.row), p.row->bytes}}] = p.predicted_s;
  }

  SideAtSize side(const std::string& level, const ConfigKey& k, std::uint64_t bytes) const {
    const Measurement& m = *measured.at({k, bytes});
    return {m.time_s, m.ci_lo_s, m.ci_hi_s, predicted_s.at({level, {k, bytes}})};
  }
};

// The case of one miss: the sizes both sides were measured at, the nearest
// to the crossing and those adjacent to it.
MissCase case_of(const PairCrossover& c, const Index& ix, const NetworkSetting& net) {
  const ConfigKey ka = member_key(c, first_member(c.algo_a));
  const ConfigKey kb = member_key(c, first_member(c.algo_b));
  std::vector<std::uint64_t> sizes;  // ascending
  for (const auto& [key, m] : ix.measured)
    if (key.first == ka && ix.measured.count({kb, key.second})) sizes.push_back(key.second);
  const double m = c.measured_B.front();
  MissCase x;
  x.ranks = c.group.ranks;
  x.cores = net.cores;
  x.stack_overhead_s = net.stack_overhead_s;
  if (!c.predicted_B.empty()) x.predicted_B = c.predicted_B.front();
  if (!c.measured_interval_B.empty()) x.interval_B = c.measured_interval_B.front();
  const auto distance = [m](std::uint64_t s) { return std::abs(std::log(s / m)); };
  x.nearest_B = *std::min_element(sizes.begin(), sizes.end(), [&](auto s, auto t) {
    return distance(s) < distance(t);
  });
  x.a = ix.side(c.params, ka, x.nearest_B);
  x.b = ix.side(c.params, kb, x.nearest_B);
  x.rounds_a = ix.rounds.at({ka, x.nearest_B});
  x.rounds_b = ix.rounds.at({kb, x.nearest_B});
  x.direct_a = ix.measured.at({ka, x.nearest_B})->entry->direct;
  x.direct_b = ix.measured.at({kb, x.nearest_B})->entry->direct;
  std::vector<std::uint64_t> adjacent;
  for (const std::uint64_t s : sizes)
    if (static_cast<double>(s) <= m) adjacent.assign(1, s);
  for (const std::uint64_t s : sizes)
    if (static_cast<double>(s) >= m) {
      if (adjacent.empty() || adjacent.back() != s) adjacent.push_back(s);
      break;
    }
  for (const std::uint64_t s : adjacent)
    x.adjacent.emplace_back(ix.side(c.params, ka, s), ix.side(c.params, kb, s));
  return x;
}

}  // namespace

MissClass classify_miss(const MissCase& c) {
  MissClass out;
  out.model_gap_s = std::abs(c.a.predicted_s - c.b.predicted_s);
  out.cpu_gap_s = std::abs(c.rounds_a - c.rounds_b) * c.stack_overhead_s *
                  std::max(0.0, c.ranks / c.cores - 1);
  const double err_a = c.a.predicted_s / c.a.median_s - 1;
  const double err_b = c.b.predicted_s / c.b.median_s - 1;
  const bool direct_under = (c.direct_a && err_a < err_b) || (c.direct_b && err_b < err_a);
  const auto at = [&out](std::string_view k, std::string_view why) {
    out.klass = k;
    out.cause = why;
    return out;
  };
  if (c.interval_B && c.predicted_B && c.interval_B->first <= *c.predicted_B &&
      *c.predicted_B <= c.interval_B->second)
    return at("i", "interval");
  if (std::all_of(c.adjacent.begin(), c.adjacent.end(),
                  [](const auto& ab) { return ratio_within_ci(ab.first, ab.second); }))
    return at("i", "parallel");
  if (c.ranks > c.cores && out.cpu_gap_s >= out.model_gap_s) return at("ii", "cpu");
  const double s = static_cast<double>(c.nearest_B);
  if (direct_under && c.ranks >= kIncastMinRanks && s >= kIncastMinBytes)
    return at("iii", "incast");
  if (s < kLatencyBoundBytes) return at("iii", "latency count");
  return at("iv", "other");
}

std::string miss_classes_csv(const Analysis& a, const ResultsFile& results,
                             const std::vector<LinkRow>& links, const NetworkSetting& net) {
  const Index ix(a, results, links);
  std::string out =
      "params,transport,collective,datatype,op,placement,ranks,algo_a,algo_b,"
      "measured_crossover_B,predicted_crossover_B,measured_crossover_lo_B,"
      "measured_crossover_hi_B,nearest_B,err_a,err_b,ratio_ci_lo,ratio_ci_hi,model_ratio,"
      "cpu_gap_s,model_gap_s,class,cause\n";
  for (const PairCrossover& c : a.crossovers) {
    // The link-limited scope's misses: a measured crossing away from
    // CPU-limited rows that the model does not put within the factor.
    if (c.measured_B.empty() || !c.cpu_limited || *c.cpu_limited || c.verdict == "within")
      continue;
    const MissCase x = case_of(c, ix, net);
    const MissClass k = classify_miss(x);
    const GroupKey& g = c.group;
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        csv_escape(c.params), csv_escape(g.transport), to_string(g.coll), to_string(g.dtype), g.op,
        g.placement, g.ranks, csv_escape(c.algo_a), csv_escape(c.algo_b),
        csv_exact(c.measured_B.front()), x.predicted_B ? csv_exact(*x.predicted_B) : "",
        x.interval_B ? csv_exact(x.interval_B->first) : "",
        x.interval_B ? csv_exact(x.interval_B->second) : "", x.nearest_B,
        csv_exact(x.a.predicted_s / x.a.median_s - 1),
        csv_exact(x.b.predicted_s / x.b.median_s - 1), csv_exact(x.a.ci_lo_s / x.b.ci_hi_s),
        csv_exact(x.a.ci_hi_s / x.b.ci_lo_s), csv_exact(x.a.predicted_s / x.b.predicted_s),
        csv_exact(k.cpu_gap_s), csv_exact(k.model_gap_s), k.klass, k.cause);
  }
  return out;
}

}  // namespace cb::models
