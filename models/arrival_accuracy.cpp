#include "models/arrival_accuracy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "models/analysis.hpp"
#include "models/csv_text.hpp"

namespace cb::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double median_of(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : "|") + n;
  return out;
}

using CellKey = std::tuple<std::string, Collective, int, std::uint64_t, std::string>;

ArrivalPick grade_cell(const std::vector<const ArrivalCase*>& cell, double min_effect) {
  const ArrivalCase& first = *cell.front();
  ArrivalPick pick{first.transport, first.coll, first.ranks, first.bytes, first.arrival,
                   "", "", false, 0};
  double best_predicted = INFINITY;
  const ArrivalCase* fastest = cell.front();
  for (const ArrivalCase* c : cell) {
    best_predicted = std::min(best_predicted, c->predicted_s);
    if (c->measured.median < fastest->measured.median) fastest = c;
  }
  // The model cannot choose between algorithms priced the same (within
  // 1e-9, as fit's picks), nor the measurement between ones it cannot
  // separate from the fastest.
  std::vector<std::string> predicted, measured;
  const ArrivalCase* pick_case = nullptr;
  for (const ArrivalCase* c : cell) {
    if (c->predicted_s <= best_predicted * (1 + 1e-9)) {
      predicted.push_back(c->algorithm);
      if (!pick_case) pick_case = c;
    }
    if (!significantly_faster(fastest->measured, c->measured, min_effect))
      measured.push_back(c->algorithm);
  }
  pick.predicted_best = join(predicted);
  pick.measured_best = join(measured);
  pick.right = tie_sets_overlap(pick.predicted_best, pick.measured_best);
  pick.contenders = cell.size();
  pick.measured_tied = measured.size();
  pick.regret = pick_case->measured.median / fastest->measured.median - 1;
  return pick;
}

using AxisKey = std::tuple<std::string, Collective, int, std::uint64_t, std::string>;

// The crossovers of one (transport, collective, p, size, kind) along the delay.
void axis_crossovers(const std::vector<const ArrivalCase*>& axis, double min_effect,
                     std::vector<ArrivalCrossover>& out, std::size_t& predicted_count) {
  // algorithm -> delay -> case (a repeated delay keeps the first row).
  std::map<std::string, std::map<double, const ArrivalCase*>> by_algo;
  for (const ArrivalCase* c : axis) by_algo[c->algorithm].emplace(c->delay_s, c);
  for (auto a = by_algo.begin(); a != by_algo.end(); ++a) {
    for (auto b = std::next(a); b != by_algo.end(); ++b) {
      std::vector<double> delays;
      std::vector<TimeCI> ma, mb;
      std::vector<double> pa, pb;
      for (const auto& [d, ca] : a->second) {
        const auto it = b->second.find(d);
        if (it == b->second.end() || d <= 0) continue;
        delays.push_back(d);
        ma.push_back(ca->measured);
        mb.push_back(it->second->measured);
        pa.push_back(ca->predicted_s);
        pb.push_back(it->second->predicted_s);
      }
      if (delays.size() < 2) continue;
      const std::vector<MeasuredCrossing> predicted = measured_crossings(delays, pa, pb);
      predicted_count += predicted.size();
      for (const MeasuredCrossing& m : separated_crossings(delays, ma, mb, min_effect)) {
        const ArrivalCase& f = *axis.front();
        ArrivalCrossover x{f.transport, f.coll, f.ranks, f.bytes, f.kind, a->first, b->first,
                           m.a_faster_after, m.bytes, m.lo_bytes, m.hi_bytes, kNaN, false};
        double best_gap = INFINITY;
        for (const MeasuredCrossing& p : predicted) {
          if (p.a_faster_after != m.a_faster_after) continue;
          const double gap = std::fabs(std::log(p.bytes / m.bytes));
          if (gap < best_gap) {
            best_gap = gap;
            x.predicted_delay_s = p.bytes;
          }
        }
        x.within_2x = best_gap <= std::log(kArrivalCrossoverFactor) * (1 + 1e-12);
        out.push_back(std::move(x));
      }
    }
  }
}

ArrivalSummary summarize_scope(const std::string& scope, const std::vector<const ArrivalCase*>& cases,
                               const std::vector<ArrivalPick>& picks,
                               const std::vector<std::string>& pick_kinds,
                               const std::vector<ArrivalCrossover>& crossovers) {
  ArrivalSummary s;
  s.scope = scope;
  std::vector<double> large, small;
  for (const ArrivalCase* c : cases)
    (c->bytes >= kArrivalLargeBytes ? large : small).push_back(std::fabs(arrival_rel_err(*c)));
  s.rows_large = large.size();
  s.rows_small = small.size();
  s.median_err_large = median_of(large);
  s.median_err_small = median_of(small);
  double tied = 0;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    if (scope != "all" && pick_kinds[i] != scope) continue;
    ++s.cells;
    if (picks[i].right) ++s.picks_right;
    tied += static_cast<double>(picks[i].measured_tied) / static_cast<double>(picks[i].contenders);
  }
  s.mean_tied_fraction = s.cells ? tied / static_cast<double>(s.cells) : kNaN;
  for (const ArrivalCrossover& x : crossovers) {
    if (scope != "all" && x.kind != scope) continue;
    ++s.crossovers;
    if (x.within_2x) ++s.crossovers_within_2x;
  }
  return s;
}

std::string bool_cell(bool b) { return b ? "1" : "0"; }

}  // namespace

double arrival_rel_err(const ArrivalCase& c) {
  return (c.predicted_s - c.measured.median) / c.measured.median;
}

double ArrivalSummary::picks_right_fraction() const {
  return cells ? static_cast<double>(picks_right) / static_cast<double>(cells) : kNaN;
}
double ArrivalSummary::crossovers_within_fraction() const {
  return crossovers ? static_cast<double>(crossovers_within_2x) / static_cast<double>(crossovers)
                    : kNaN;
}
bool ArrivalSummary::err_met() const {
  return rows_large > 0 && median_err_large <= kArrivalErrTarget;
}
bool ArrivalSummary::picks_met() const {
  return cells > 0 && picks_right_fraction() >= kArrivalPickTarget;
}
bool ArrivalSummary::crossovers_met() const {
  return crossovers > 0 && crossovers_within_fraction() >= kArrivalPickTarget;
}

ArrivalAccuracy grade_arrival(const std::vector<ArrivalCase>& cases, double min_effect) {
  ArrivalAccuracy out;
  std::map<CellKey, std::vector<const ArrivalCase*>> cells;
  std::map<AxisKey, std::vector<const ArrivalCase*>> axes;
  std::map<std::string, std::vector<const ArrivalCase*>> kinds;
  std::vector<const ArrivalCase*> all;
  for (const ArrivalCase& c : cases) {
    cells[{c.transport, c.coll, c.ranks, c.bytes, c.arrival}].push_back(&c);
    axes[{c.transport, c.coll, c.ranks, c.bytes, c.kind}].push_back(&c);
    kinds[c.kind].push_back(&c);
    all.push_back(&c);
  }
  std::vector<std::string> pick_kinds;
  for (const auto& [key, cell] : cells) {
    out.picks.push_back(grade_cell(cell, min_effect));
    pick_kinds.push_back(cell.front()->kind);
  }
  for (const auto& [key, axis] : axes)
    axis_crossovers(axis, min_effect, out.crossovers,
                    out.predicted_crossovers[axis.front()->kind]);
  out.summaries.push_back(summarize_scope("all", all, out.picks, pick_kinds, out.crossovers));
  for (const auto& [kind, n] : out.predicted_crossovers) out.summaries[0].predicted_crossovers += n;
  if (kinds.size() > 1)
    for (const auto& [kind, list] : kinds) {
      out.summaries.push_back(summarize_scope(kind, list, out.picks, pick_kinds, out.crossovers));
      out.summaries.back().predicted_crossovers = out.predicted_crossovers[kind];
    }
  return out;
}

std::string arrival_cases_csv(const std::vector<ArrivalCase>& cases) {
  std::string t =
      "transport,collective,ranks,bytes,arrival,kind,delay_us,algorithm,noskew_us,"
      "after_last_us,after_last_ci_lo_us,after_last_ci_hi_us,predicted_after_last_us,rel_err\n";
  for (const ArrivalCase& c : cases)
    t += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_escape(c.transport),
                     to_string(c.coll), c.ranks, c.bytes, csv_escape(c.arrival), csv_escape(c.kind),
                     csv_number(c.delay_s * 1e6), csv_escape(c.algorithm),
                     csv_number(c.noskew_s * 1e6), csv_number(c.measured.median * 1e6),
                     csv_number(c.measured.lo * 1e6), csv_number(c.measured.hi * 1e6),
                     csv_number(c.predicted_s * 1e6), csv_number(arrival_rel_err(c)));
  return t;
}

std::string arrival_picks_csv(const std::vector<ArrivalPick>& picks) {
  std::string t =
      "transport,collective,ranks,bytes,arrival,predicted_best,measured_best,right,regret,"
      "contenders,measured_tied\n";
  for (const ArrivalPick& p : picks)
    t += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", csv_escape(p.transport),
                     to_string(p.coll), p.ranks, p.bytes, csv_escape(p.arrival),
                     csv_escape(p.predicted_best), csv_escape(p.measured_best), bool_cell(p.right),
                     csv_number(p.regret), p.contenders, p.measured_tied);
  return t;
}

std::string arrival_crossovers_csv(const std::vector<ArrivalCrossover>& crossovers) {
  std::string t =
      "transport,collective,ranks,bytes,kind,algo_a,algo_b,a_faster_after,measured_delay_us,"
      "measured_lo_us,measured_hi_us,predicted_delay_us,within_2x\n";
  for (const ArrivalCrossover& x : crossovers)
    t += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_escape(x.transport),
                     to_string(x.coll), x.ranks, x.bytes, csv_escape(x.kind), csv_escape(x.algo_a),
                     csv_escape(x.algo_b), bool_cell(x.a_faster_after),
                     csv_number(three_digits(x.measured_delay_s * 1e6)),
                     csv_number(x.measured_lo_s * 1e6), csv_number(x.measured_hi_s * 1e6),
                     std::isnan(x.predicted_delay_s)
                         ? std::string()
                         : csv_number(three_digits(x.predicted_delay_s * 1e6)),
                     bool_cell(x.within_2x));
  return t;
}

std::string arrival_summary_csv(const std::vector<ArrivalSummary>& summaries) {
  std::string t =
      "scope,rows_large,median_abs_err_large,rows_small,median_abs_err_small,cells,picks_right,"
      "picks_right_fraction,mean_tied_fraction,crossovers,crossovers_within_2x,"
      "crossovers_within_fraction,predicted_crossovers,err_target,err_met,picks_target,"
      "picks_met,crossovers_met,large_from_B,crossover_factor\n";
  for (const ArrivalSummary& s : summaries)
    t += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                     csv_escape(s.scope),
                     s.rows_large, csv_number(s.median_err_large), s.rows_small,
                     csv_number(s.median_err_small), s.cells, s.picks_right,
                     csv_number(s.picks_right_fraction()), csv_number(s.mean_tied_fraction),
                     s.crossovers, s.crossovers_within_2x,
                     csv_number(s.crossovers_within_fraction()), s.predicted_crossovers,
                     csv_number(kArrivalErrTarget),
                     bool_cell(s.err_met()), csv_number(kArrivalPickTarget),
                     bool_cell(s.picks_met()), bool_cell(s.crossovers_met()),
                     kArrivalLargeBytes, csv_number(kArrivalCrossoverFactor));
  return t;
}

}  // namespace cb::models
