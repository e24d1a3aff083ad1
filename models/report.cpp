#include "models/report.hpp"

#include "models/crossover.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace cb::models {

namespace {

std::string us(double s) { return std::isnan(s) ? "–" : fmt::format("{:.3g}", s * 1e6); }
// Bandwidth in GB/s from seconds per byte.
std::string gbps(double s_per_B) {
  if (std::isnan(s_per_B)) return "–";
  if (s_per_B <= 0) return "∞";
  return fmt::format("{:.3g}", 1e-9 / s_per_B);
}
std::string pct(double r) { return std::isnan(r) ? "–" : fmt::format("{:+.1f}%", 100 * r); }
std::string size(double b) {
  if (std::isnan(b)) return "–";
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024 && u < 3) {
    b /= 1024;
    ++u;
  }
  return fmt::format("{:.4g} {}", b, units[u]);
}
std::string sizes(const std::vector<double>& v) {
  if (v.empty()) return "none";
  std::string out;
  for (double x : v) out += (out.empty() ? "" : ", ") + size(x);
  return out;
}

void parameters(std::string& out, const Analysis& a) {
  out += "## Fitted parameters\n\n";
  out += "T = α·rounds + β·bytes + γ·reduced bytes, with rounds, bytes and reduced bytes from each "
         "algorithm's closed-form cost (the exact variant implemented). Bandwidths are 1/β and "
         "1/γ. Intervals are 95% percentile-bootstrap intervals over rows.\n\n";
  out += "| source | α (µs) | bandwidth 1/β (GB/s) | reduce bandwidth 1/γ (GB/s) | R² | rows |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const TransportFit& tf : a.transports) {
    if (!tf.fit) {
      out += fmt::format("| global fit, {} | no fit (no usable schedule rows) | | | | 0 |\n",
                         tf.transport);
      continue;
    }
    const GlobalFit& g = *tf.fit;
    const auto cell = [](bool id, std::string v, std::string lo, std::string hi) {
      return id ? fmt::format("{} [{}, {}]", v, lo, hi) : std::string("not identified");
    };
    // Bandwidth bounds swap: the high β bound is the low bandwidth.
    out += fmt::format(
        "| global fit, {} | {} | {} | {} | {:.4f} | {} |\n", tf.transport,
        cell(g.identified[0], us(g.params.alpha_s), us(g.lo.alpha_s), us(g.hi.alpha_s)),
        cell(g.identified[1], gbps(g.params.beta_s_per_B), gbps(g.hi.beta_s_per_B),
             gbps(g.lo.beta_s_per_B)),
        cell(g.identified[2], gbps(g.params.gamma_s_per_B), gbps(g.hi.gamma_s_per_B),
             gbps(g.lo.gamma_s_per_B)),
        g.r_squared, g.points);
  }
  for (const CalibrationInput& c : a.calibrations)
    out += fmt::format("| calibration ({}), {} | {} | {} | {} | | |\n", md_escape(c.file),
                       md_escape(c.transport), us(c.params.alpha_s),
                       gbps(c.params.beta_s_per_B), gbps(c.params.gamma_s_per_B));
  out += "\n";
  bool any = false;
  for (const TransportFit& tf : a.transports)
    for (const auto& [why, n] : tf.excluded) {
      if (!any) out += "Rows not used by the global fit (they still get per-configuration lines):\n\n";
      any = true;
      out += fmt::format("- {}: {} row(s): {}\n", md_escape(tf.transport), n, why);
    }
  for (const TransportFit& tf : a.transports)
    if (!a.calibrations.empty() && !calibration_for(a, tf.transport))
      out += fmt::format("- {}: not predicted out of sample (no calibration of this transport)\n",
                         md_escape(tf.transport));
  std::size_t over = 0;
  for (const ConfigResult& c : a.configs)
    for (const Measurement* m : c.points) over += m->oversubscribed;
  if (over > 0)
    out += fmt::format("- {} row(s) were measured with more ranks than cores (oversubscribed = 1): "
                       "their times say as much about the OS scheduler as about the transport "
                       "(models/fit_rows.hpp)\n",
                       over);
  for (const TransportFit& tf : a.transports)
    if (!tf.note.empty()) out += fmt::format("- {}: {}\n", md_escape(tf.transport), tf.note);
  if (any || !a.calibrations.empty() || over > 0) out += "\n";
}

void errors(std::string& out, const Analysis& a) {
  out += "## Model error per algorithm\n\n";
  out += "rel_err = (predicted − measured) / measured over every measured row (all rank counts, "
         "datatypes, ops, placements); `global` = the transport's joint fit (in-sample), "
         "`calibration` = the calibration file alone (out-of-sample), `config` = each "
         "configuration's own line. Worst = largest |rel_err|.\n\n";
  out += "| params | transport | collective | algorithm | rows | median \\|err\\| | worst err "
         "(at) | rows ≥ 64 KiB | median \\|err\\| ≥ 64 KiB |\n";
  out += "|---|---|---|---|---|---|---|---|---|\n";
  struct Acc {
    std::vector<double> all, large;
    const Prediction* worst = nullptr;
  };
  std::map<std::tuple<std::string, std::string, int, std::string>, Acc> acc;
  for (const Prediction& p : a.predictions) {
    Acc& x = acc[{p.params, p.row->transport, static_cast<int>(p.row->scenario.coll),
                  p.row->algorithm}];
    x.all.push_back(std::fabs(p.rel_err));
    if (static_cast<double>(p.row->bytes) >= kLargeBytes) x.large.push_back(std::fabs(p.rel_err));
    if (!x.worst || std::fabs(p.rel_err) > std::fabs(x.worst->rel_err)) x.worst = &p;
  }
  for (const auto& [k, x] : acc) {
    const auto& [params, transport, coll, algo] = k;
    const Measurement& w = *x.worst->row;
    out += fmt::format("| {} | {} | {} | {} | {} | {:.1f}% | {} ({}, p={}) | {} | {} |\n",
                       md_escape(params), md_escape(transport),
                       to_string(static_cast<Collective>(coll)), md_escape(algo), x.all.size(),
                       100 * median(x.all), pct(x.worst->rel_err), size(static_cast<double>(w.bytes)),
                       w.scenario.p, x.large.size(),
                       x.large.empty() ? "–" : fmt::format("{:.1f}%", 100 * median(x.large)));
  }
  out += "\n";
}

void lines(std::string& out, const Analysis& a) {
  out += "## Per-configuration lines T(n) = a + b·n\n\n";
  out += "a = effective latency, 1/b = effective bandwidth (n = the size column of the results, "
         "nccl-tests' S). R² is on the relative scale. Knees: sizes where a piecewise fit starts "
         "a new segment (protocol or cache changes).\n\n";
  out += "| configuration | points | latency a (µs) [95% CI] | bandwidth 1/b (GB/s) [95% CI] | R² | "
         "knees |\n|---|---|---|---|---|---|\n";
  for (const ConfigResult& c : a.configs)
    out += fmt::format("| {} | {} | {} [{}, {}] | {} [{}, {}] | {:.4f} | {} |\n",
                       md_escape(describe(c.key)),
                       c.line.points, us(c.line.a_s), us(c.line.a_lo_s), us(c.line.a_hi_s),
                       gbps(c.line.b_s_per_B), gbps(c.line.b_hi_s_per_B), gbps(c.line.b_lo_s_per_B),
                       c.line.r_squared, sizes(c.piecewise.knees_B));
  out += "\n";
}

void crossovers(std::string& out, const Analysis& a) {
  out += "## Crossovers: predicted vs measured\n\n";
  if (a.crossovers.empty()) {
    out += "No group has two schedule algorithms measured at the same sizes.\n\n";
    return;
  }
  out += "First size where the faster of the pair changes, within the measured range, to 3 "
         "significant digits. A measured crossover counts only where the two algorithms' 95% "
         "confidence intervals separate on both sides of it (located between sweep points in "
         "log-size); algorithms whose schedules exchange the same messages at that p form one "
         "group (a=b) and are not paired. `faster below` = the winner below the first crossover "
         "(at the smallest size where there is none; `tie`: the intervals overlap there). Pairs with no crossing on either side are "
         "counted, not listed.\n\n";
  out += "| params | group | pair | predicted | measured | faster below (pred / meas) | "
         "crossings (pred / meas) |\n|---|---|---|---|---|---|---|\n";
  std::size_t quiet = 0;
  for (const PairCrossover& c : a.crossovers) {
    if (c.predicted_B.empty() && c.measured_B.empty()) {
      ++quiet;
      continue;
    }
    out += fmt::format("| {} | {} | {} vs {} | {} | {} | {} / {} | {} / {} |\n", md_escape(c.params),
                       md_escape(describe(c.group)), md_escape(c.algo_a), md_escape(c.algo_b),
                       c.predicted_B.empty() ? "none" : crossover_size_text(c.predicted_B.front()),
                       c.measured_B.empty() ? "none" : crossover_size_text(c.measured_B.front()),
                       md_escape(c.predicted_faster_below), md_escape(c.measured_faster_below),
                       c.predicted_B.size(), c.measured_B.size());
  }
  out += fmt::format("\n{} pair(s) cross neither in the model nor in the measurements.\n\n", quiet);
}

void best(std::string& out, const Analysis& a) {
  out += "## Best algorithm per size: predicted vs measured\n\n";
  if (a.best.empty()) {
    out += "No size has two schedule algorithms measured.\n\n";
    return;
  }
  out += "Regret = measured time of the model's choice / measured best − 1 (0 = the model chose "
         "right). Algorithms the model predicts equal (e.g. several at p = 2) are its choice "
         "together (a\\|b), and the best measured of them counts. The measured best is every "
         "algorithm whose 95% confidence interval reaches the fastest's; the model is right when "
         "the two sets share an algorithm.\n\n";
  std::map<std::pair<std::string, GroupKey>, std::vector<const BestAtSize*>> by;
  for (const BestAtSize& b : a.best) by[{b.params, b.group}].push_back(&b);
  out += "| params | group | sizes | model right | median regret | worst regret (at) |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const auto& [k, v] : by) {
    std::vector<double> r;
    std::size_t right = 0;
    const BestAtSize* worst = v.front();
    for (const BestAtSize* b : v) {
      r.push_back(b->regret);
      right += b->model_right();
      if (b->regret > worst->regret) worst = b;
    }
    out += fmt::format("| {} | {} | {} | {} | {:.1f}% | {:.1f}% ({}: {} chosen, {} best) |\n",
                       md_escape(k.first), md_escape(describe(k.second)), v.size(), right,
                       100 * median(r), 100 * worst->regret, size(static_cast<double>(worst->bytes)),
                       md_escape(worst->predicted_best), md_escape(worst->measured_best));
  }
  out += "\nPer size (see crossovers.csv, kind = best, for every row):\n\n";
  out += "| params | group | size | predicted best | measured best | regret |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const BestAtSize& b : a.best)
    out += fmt::format("| {} | {} | {} | {} | {} | {:.1f}% |\n", md_escape(b.params),
                       md_escape(describe(b.group)), size(static_cast<double>(b.bytes)),
                       md_escape(b.predicted_best), md_escape(b.measured_best), 100 * b.regret);
  out += "\n";
}

// The targets of models/README.md and how each parameter set meets them.
void targets(std::string& out, const Analysis& a) {
  const Targets& t = kTargetsAllRows;
  const auto all_rows = [&](const Grade& g) { return g.targets == &t; };
  if (std::none_of(a.grades.begin(), a.grades.end(), all_rows)) return;
  const auto pct_of = [](double v) { return fmt::format("{:g}%", 100 * v); };
  out += "## Accuracy and choices against the targets (ablation)\n\n";
  out += fmt::format(
      "Targets (out of sample, per transport): median |err| ≤ {} at ≥ 64 KiB and ≤ {} "
      "below; the worst collective's median |err| ≥ 64 KiB ≤ {}; the model's pick within the "
      "measured best's confidence interval in ≥ {} of sizes; median regret ≤ {}. "
      "`calibration` is the α-β-γ baseline from the microbenchmarks; each `+` row adds terms "
      "(cumulative), every one calibrated by its own microbenchmark:\n\n",
      pct_of(t.median_abs_err_large), pct_of(t.median_abs_err_small), pct_of(t.worst_collective),
      pct_of(t.picks), pct_of(t.median_regret));
  for (const TermInfo& info : kTerms) out += fmt::format("- {}\n", term_description(info.term));
  out += "\n`global` is the in-sample fit, for comparison. A missed target is marked ✗ with the "
         "amount by which it is missed.\n\n";
  out += "| params | transport | median \\|err\\| ≥ 64 KiB | median \\|err\\| < 64 KiB | worst "
         "collective ≥ 64 KiB | picks within CI | median regret |\n|---|---|---|---|---|---|---|\n";
  // The verdict is met_cell's, the one rule accuracy.csv's met_* columns hold.
  const auto mark = [](double v, double target, bool at_least) {
    if (std::isnan(v)) return std::string("–");
    if (met_cell(v, target, at_least) == "1") return fmt::format("{:.1f}% ✓", 100 * v);
    return fmt::format("{:.1f}% ✗ ({:+.1f} points)", 100 * v, 100 * (v - target));
  };
  for (const Grade& g : a.grades) {
    if (!all_rows(g)) continue;
    const double picks =
        g.picks ? static_cast<double>(g.picks_right) / static_cast<double>(g.picks) : NAN;
    out += fmt::format("| {} | {} | {} | {} | {} {} | {}/{} = {} | {} |\n", md_escape(g.params),
                       md_escape(g.transport), mark(g.median_large, t.median_abs_err_large, false),
                       mark(g.median_small, t.median_abs_err_small, false),
                       md_escape(g.worst_collective),
                       mark(g.worst_collective_median, t.worst_collective, false), g.picks_right,
                       g.picks, mark(picks, t.picks, true),
                       mark(g.median_regret, t.median_regret, false));
  }
  out += "\nThe sign of the error, per size range (median signed rel_err):\n\n";
  for (const Grade& g : a.grades) {
    if (!all_rows(g)) continue;
    std::vector<double> mid, top;
    for (const Prediction& p : a.predictions) {
      if (p.params != g.params || p.row->transport != g.transport) continue;
      const double b = static_cast<double>(p.row->bytes);
      if (b >= kLargeBytes && b <= kMidBandTopBytes) mid.push_back(p.rel_err);
      if (b >= kTopBandBytes) top.push_back(p.rel_err);
    }
    const auto med = [](std::vector<double> v) { return v.empty() ? NAN : median(std::move(v)); };
    out += fmt::format("- {}, {}: {} {}\n", md_escape(g.params), md_escape(g.transport),
                       sign_prose("64 KiB–1 MiB", med(mid)), sign_prose("≥ 2 MiB", med(top)));
  }
  out += "\n";
}

}  // namespace

std::string md_escape(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (std::string_view("\\|*`<>[]").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out;
}

std::string sign_prose(std::string_view what, double signed_median) {
  if (std::isnan(signed_median)) return fmt::format("{}: no rows.", what);
  if (signed_median > 0)
    return fmt::format("{}: the model over-predicts (median {:+.0f}%).", what, 100 * signed_median);
  if (signed_median < 0)
    return fmt::format("{}: the model under-predicts (median {:+.0f}%).", what, 100 * signed_median);
  return fmt::format("{}: no bias (median 0%).", what);
}

std::string model_report(const Analysis& a) {
  std::string out = "# collbench model report\n\n";
  out += fmt::format("Source: `{}` ({} rows, {} configurations).", a.source_file, a.rows,
                     a.configs.size());
  for (const CalibrationInput& c : a.calibrations)
    out += fmt::format(" Calibration of {}: `{}`.", md_escape(c.transport), md_escape(c.file));
  out += "\n\n";
  targets(out, a);
  parameters(out, a);
  errors(out, a);
  crossovers(out, a);
  best(out, a);
  lines(out, a);
  return out;
}

}  // namespace cb::models
