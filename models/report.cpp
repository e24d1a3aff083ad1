#include "models/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace cb::models {

namespace {

constexpr double kLargeBytes = 64 * 1024;  // the accuracy target's size threshold

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
  if (a.calibration)
    out += fmt::format("| calibration ({}), {} | {} | {} | {} | | |\n", a.calibration_file,
                       a.calibration_transport, us(a.calibration->alpha_s),
                       gbps(a.calibration->beta_s_per_B), gbps(a.calibration->gamma_s_per_B));
  out += "\n";
  bool any = false;
  for (const TransportFit& tf : a.transports)
    for (const auto& [why, n] : tf.excluded) {
      if (!any) out += "Rows not used by the global fit (they still get per-configuration lines):\n\n";
      any = true;
      out += fmt::format("- {}: {} row(s): {}\n", tf.transport, n, why);
    }
  if (a.calibration)
    for (const TransportFit& tf : a.transports)
      if (tf.transport != a.calibration_transport)
        out += fmt::format("- {}: not predicted by the calibration, which measured transport {}\n",
                           tf.transport, a.calibration_transport);
  std::size_t over = 0;
  for (const ConfigResult& c : a.configs)
    for (const Measurement* m : c.points) over += m->oversubscribed;
  if (over > 0)
    out += fmt::format("- {} row(s) were measured with more ranks than cores (oversubscribed = 1): "
                       "their times say as much about the OS scheduler as about the transport, "
                       "and they are fitted like the others\n",
                       over);
  if (any || a.calibration || over > 0) out += "\n";
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
    out += fmt::format("| {} | {} | {} | {} | {} | {:.1f}% | {} ({}, p={}) | {} | {} |\n", params,
                       transport, to_string(static_cast<Collective>(coll)), algo, x.all.size(),
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
    out += fmt::format("| {} | {} | {} [{}, {}] | {} [{}, {}] | {:.4f} | {} |\n", describe(c.key),
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
  out += "First size where the faster of the pair changes, within the measured range (measured: "
         "interpolated in log-size between sweep points). `faster below` = the winner at the "
         "smallest size; `none` = no crossing in range.\n\n";
  out += "| params | group | pair | predicted | measured | faster below (pred / meas) | "
         "crossings (pred / meas) |\n|---|---|---|---|---|---|---|\n";
  for (const PairCrossover& c : a.crossovers)
    out += fmt::format("| {} | {} | {} vs {} | {} | {} | {} / {} | {} / {} |\n", c.params,
                       describe(c.group), c.algo_a, c.algo_b,
                       c.predicted_B.empty() ? "none" : size(c.predicted_B.front()),
                       c.measured_B.empty() ? "none" : size(c.measured_B.front()),
                       c.predicted_faster_below, c.measured_faster_below, c.predicted_B.size(),
                       c.measured_B.size());
  out += "\n";
}

void best(std::string& out, const Analysis& a) {
  out += "## Best algorithm per size: predicted vs measured\n\n";
  if (a.best.empty()) {
    out += "No size has two schedule algorithms measured.\n\n";
    return;
  }
  out += "Regret = measured time of the model's choice / measured best − 1 (0 = the model chose "
         "right). Algorithms the model predicts equal (e.g. several at p = 2) are its choice "
         "together (a|b), and the best measured of them counts.\n\n";
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
                       k.first, describe(k.second), v.size(), right, 100 * median(r),
                       100 * worst->regret, size(static_cast<double>(worst->bytes)),
                       worst->predicted_best, worst->measured_best);
  }
  out += "\nPer size (see crossovers.csv, kind = best, for every row):\n\n";
  out += "| params | group | size | predicted best | measured best | regret |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const BestAtSize& b : a.best)
    out += fmt::format("| {} | {} | {} | {} | {} | {:.1f}% |\n", b.params, describe(b.group),
                       size(static_cast<double>(b.bytes)), b.predicted_best, b.measured_best,
                       100 * b.regret);
  out += "\n";
}

}  // namespace

std::string model_report(const Analysis& a) {
  std::string out = "# collbench model report\n\n";
  out += fmt::format("Source: `{}` ({} rows, {} configurations).", a.source_file, a.rows,
                     a.configs.size());
  if (a.calibration) out += fmt::format(" Calibration: `{}`.", a.calibration_file);
  out += "\n\n";
  parameters(out, a);
  errors(out, a);
  crossovers(out, a);
  best(out, a);
  lines(out, a);
  return out;
}

}  // namespace cb::models
