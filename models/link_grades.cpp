#include "models/link_grades.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "models/csv_text.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

namespace {

double median_or_nan(std::vector<double> v) {
  return v.empty() ? std::nan("") : median(std::move(v));
}

// The algorithms of a crossover group ("butterfly=rhd").
std::vector<std::string> members(std::string_view group) {
  std::vector<std::string> out;
  for (std::size_t from = 0;;) {
    const std::size_t to = group.find('=', from);
    out.emplace_back(group.substr(from, to - from));
    if (to == std::string_view::npos) return out;
    from = to + 1;
  }
}

struct Scope {
  // CPU-limited rows, as (group, bytes, algorithm) and as the rows themselves.
  std::set<std::tuple<GroupKey, std::uint64_t, std::string>> cpu;
  std::set<const Measurement*> cpu_rows;
  std::set<std::pair<GroupKey, std::uint64_t>> cpu_sizes;  // some algorithm CPU-limited there
  std::map<GroupKey, std::set<std::uint64_t>> sizes;        // measured sizes of each group
};

// Whether a measured crossing at m bytes lies next to a CPU-limited row of
// the pair: at the measured sizes on either side of it.
bool crossing_cpu_limited(const Scope& s, const PairCrossover& c, double m) {
  const auto found = s.sizes.find(c.group);
  if (found == s.sizes.end()) return false;
  std::vector<std::uint64_t> near;
  for (const std::uint64_t size : found->second)  // ascending
    if (static_cast<double>(size) <= m) near.assign(1, size);
  for (const std::uint64_t size : found->second)
    if (static_cast<double>(size) >= m) {
      near.push_back(size);
      break;
    }
  std::vector<std::string> algos = members(c.algo_a);
  for (std::string& b : members(c.algo_b)) algos.push_back(std::move(b));
  for (const std::uint64_t size : near)
    for (const std::string& algo : algos)
      if (s.cpu.contains({c.group, size, algo})) return true;
  return false;
}

// The rows the CPU limits (link_limits.hpp) and every group's measured sizes.
Scope scope_of(const Analysis& a, const std::vector<LinkRow>& rows) {
  Scope s;
  for (const LinkRow& r : rows)
    if (r.cpu_limited()) {
      const GroupKey g = group_of(*r.row);
      s.cpu.insert({g, r.row->bytes, r.row->algorithm});
      s.cpu_rows.insert(r.row);
      s.cpu_sizes.insert({g, r.row->bytes});
    }
  for (const ConfigResult& c : a.configs)
    for (const Measurement* m : c.points) s.sizes[group_of(*m)].insert(m->bytes);
  return s;
}

// Levels graded: the calibration's (the global fit is in sample).
bool graded(const std::string& params) {
  return params == kByCalibration || params.rfind(std::string(kByCalibration) + "+", 0) == 0;
}

// The predictions the scope holds: a graded level's, of a row the CPU does
// not limit. The one test for them: the grades and link-errors.csv both use it.
bool in_scope(const Scope& s, const Prediction& p) {
  return graded(p.params) && !s.cpu_rows.contains(p.row);
}

}  // namespace

void grade_link_limited(Analysis& a, const std::vector<LinkRow>& rows) {
  const Scope s = scope_of(a, rows);
  std::map<std::pair<std::string, std::string>, Grade> by;
  const auto grade = [&](const std::string& params, const std::string& transport) -> Grade& {
    Grade& g = by[{params, transport}];
    g.params = params;
    g.transport = transport;
    g.targets = &kTargetsLinkLimited;
    return g;
  };
  std::map<std::pair<std::string, std::string>, std::vector<double>> large, small, all, regrets,
      signed_large;
  std::map<std::pair<std::string, std::string>, std::map<Collective, std::vector<double>>> coll;
  for (const Prediction& p : a.predictions) {
    if (!in_scope(s, p)) continue;
    const auto key = std::make_pair(p.params, p.row->transport);
    grade(p.params, p.row->transport);
    const double e = std::fabs(p.rel_err);
    all[key].push_back(e);
    if (static_cast<double>(p.row->bytes) >= kLargeBytes) {
      large[key].push_back(e);
      signed_large[key].push_back(p.rel_err);
      coll[key][p.row->scenario.coll].push_back(e);
    } else {
      small[key].push_back(e);
    }
  }
  for (BestAtSize& b : a.best) {
    b.cpu_limited = s.cpu_sizes.contains({b.group, b.bytes});
    if (!graded(b.params)) continue;
    Grade& g = grade(b.params, b.group.transport);
    if (*b.cpu_limited) {
      ++g.picks_left_out;
      continue;
    }
    ++g.picks;
    g.picks_right += b.model_right();
    regrets[{b.params, b.group.transport}].push_back(b.regret);
    g.worst_regret = std::max(g.worst_regret, b.regret);
  }
  for (PairCrossover& c : a.crossovers) {
    if (c.measured_B.empty()) continue;
    c.cpu_limited = crossing_cpu_limited(s, c, c.measured_B.front());
    if (*c.cpu_limited) continue;
    judge_crossover(c, kTargetsLinkLimited.crossover_factor);
    if (!graded(c.params)) continue;
    Grade& g = grade(c.params, c.group.transport);
    ++g.crossovers;
    g.crossovers_within_factor += c.verdict == "within";
    g.crossovers_within_interval += c.within_interval;
  }
  for (auto& [key, g] : by) {
    g.rows_large = large[key].size();
    g.rows_small = small[key].size();
    g.rows_all = all[key].size();
    g.median_large = median_or_nan(large[key]);
    g.median_signed_large = median_or_nan(signed_large[key]);
    g.median_small = median_or_nan(small[key]);
    g.median_all = median_or_nan(all[key]);
    for (const auto& [c, v] : coll[key]) {
      const double m = median_or_nan(v);
      if (g.worst_collective.empty() || m > g.worst_collective_median) {
        g.worst_collective = std::string(to_string(c));
        g.worst_collective_median = m;
      }
    }
    g.median_regret = median_or_nan(regrets[key]);
    const auto terms = a.level_terms.find(g.params);
    g.per_rank_clocks = terms != a.level_terms.end() && terms->second.contains(Term::flight);
    a.grades.push_back(g);
  }
}

std::string link_errors_csv(const Analysis& a, const std::vector<LinkRow>& rows) {
  const Scope s = scope_of(a, rows);
  // Ordered by name, as the report lists them.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::vector<double>>
      by;
  for (const Prediction& p : a.predictions)
    if (in_scope(s, p))
      by[{p.params, p.row->transport, std::string(to_string(p.row->scenario.coll)),
          p.row->algorithm}]
          .push_back(p.rel_err);
  std::string out =
      "params,transport,scope,collective,algorithm,rows_all,median_signed_err_all,"
      "median_abs_err_all\n";
  for (const auto& [k, errs] : by) {
    std::vector<double> abs_errs;
    for (const double e : errs) abs_errs.push_back(std::fabs(e));
    out += fmt::format("{},{},{},{},{},{},{},{}\n", csv_escape(std::get<0>(k)),
                       csv_escape(std::get<1>(k)), kTargetsLinkLimited.scope, std::get<2>(k),
                       csv_escape(std::get<3>(k)), errs.size(), csv_number(median(errs)),
                       csv_number(median(std::move(abs_errs))));
  }
  return out;
}

namespace {

// network.csv's cells from latency_s on for parameters (alpha, beta) held to
// the two targets: one rule for the fit's and the calibration's recovery.
std::string link_recovery_cells(const ModelParams& params, const NetworkSetting& net,
                                double alpha_target, double rate_target) {
  const double expected_alpha = net.latency_s + net.stack_overhead_s;
  const double alpha = params.alpha_s;
  const double rate = 1 / params.beta_s_per_B;
  const double alpha_error = alpha / expected_alpha - 1;
  const double rate_error = rate / net.wire_B_per_s - 1;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}", csv_number(net.latency_s),
                     csv_number(net.stack_overhead_s), csv_number(expected_alpha),
                     csv_number(alpha), csv_number(alpha_error), csv_number(alpha_target),
                     met_cell(std::fabs(alpha_error), alpha_target),
                     csv_number(net.wire_B_per_s), csv_number(kTcpPayloadShare),
                     csv_number(net.wire_B_per_s * kTcpPayloadShare), csv_number(rate),
                     csv_number(rate_error), csv_number(rate_target),
                     met_cell(std::fabs(rate_error), rate_target));
}

constexpr std::string_view kRecoveryHeader =
    "latency_s,stack_overhead_s,expected_alpha_s,{}_alpha_s,alpha_error,target_alpha_error,"
    "met_alpha,rate_B_per_s,payload_share,expected_rate_B_per_s,{}_rate_B_per_s,rate_error,"
    "target_rate_error,met_rate\n";

}  // namespace

std::string network_csv(const Analysis& a, const NetworkSetting& net) {
  std::string out = "transport," + fmt::format(fmt::runtime(kRecoveryHeader), "fitted", "fitted");
  for (const TransportFit& tf : a.transports)
    if (tf.fit)
      out += fmt::format("{},{}\n", csv_escape(tf.transport),
                         link_recovery_cells(tf.fit->params, net, kTargetAlphaError,
                                             kTargetRateError));
  return out;
}

std::string calibrated_link_csv(const std::vector<CalibrationInput>& calibrations,
                                const NetworkSetting& net) {
  std::string out = "transport,calibration,levels," +
                    fmt::format(fmt::runtime(kRecoveryHeader), "calibrated", "calibrated");
  for (const CalibrationInput& c : calibrations)
    out += fmt::format("{},{},{},{}\n", csv_escape(c.transport), csv_escape(c.file),
                       c.params.two_level() ? 2 : 1,
                       link_recovery_cells(c.params, net, kTargetCalibratedLinkError,
                                           kTargetCalibratedLinkError));
  return out;
}

}  // namespace cb::models
