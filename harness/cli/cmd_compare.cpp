// `collbench compare BASE.csv NEW.csv [--threshold 5%] [--changed]`: the
// regression check of harness/compare.hpp as a command. Prints one line per
// matched configuration (or only the changed ones) and a summary; exits 1 when
// any configuration is slower beyond its CI and the threshold, so a CI job can
// run it after a library upgrade or an algorithm change.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <memory>

#include "algorithms/types.hpp"
#include "harness/cli/commands.hpp"
#include "harness/report/compare.hpp"

namespace cb {
namespace {

struct CompareOptions {
  std::string base, next;
  std::string threshold = "5%";
  bool changed = false;
};

std::string ci_text(const TimedConfig& c) {
  return fmt::format("{:.4g} [{:.4g}, {:.4g}]", c.median_us, c.ci_lo_us, c.ci_hi_us);
}

int compare(const CompareOptions& o) {
  const double threshold = parse_threshold(o.threshold);
  const auto base = read_timed_configs(o.base);
  const auto next = read_timed_configs(o.next);
  const CompareResult r = compare_runs(base, next, threshold);
  if (r.rows.empty())
    throw UsageError(fmt::format("{} and {} share no configuration (key columns: transport, "
                                 "collective, algorithm, datatype, op, placement, ranks, bytes)",
                                 o.base, o.next));
  std::size_t key_w = 3, base_w = 4, next_w = 3;
  for (const Comparison& c : r.rows) {
    key_w = std::max(key_w, c.key.size());
    base_w = std::max(base_w, ci_text(c.base).size());
    next_w = std::max(next_w, ci_text(c.next).size());
  }
  fmt::print("# collbench compare: {} (base) vs {} (new); threshold {:g}%: a verdict needs the "
             "ratio beyond it and the medians' 95% CIs apart\n",
             o.base, o.next, threshold * 100);
  fmt::print("# key = transport/collective/algorithm/datatype/op/placement/ranks/bytes; "
             "times: median [95% CI] in us\n");
  fmt::print("{:<{}}  {:>{}}  {:>{}}  {:>8}  {}\n", "# key", key_w, "base", base_w, "new", next_w,
             "new/base", "verdict");
  double log_sum = 0;
  int logs = 0;
  for (const Comparison& c : r.rows) {
    if (std::isfinite(c.ratio) && c.ratio > 0) {
      log_sum += std::log(c.ratio);
      ++logs;
    }
    if (o.changed && c.verdict == Verdict::same) continue;
    fmt::print("{:<{}}  {:>{}}  {:>{}}  {:>8.3f}  {}{}\n", c.key, key_w, ci_text(c.base), base_w,
               ci_text(c.next), next_w, c.ratio, to_string(c.verdict),
               c.base.oversubscribed || c.next.oversubscribed ? " (oversubscribed)" : "");
  }
  fmt::print("# {} configurations: {} faster, {} SLOWER, {} same, {} noisy (beyond the threshold "
             "but inside the CIs)\n",
             r.rows.size(), r.count(Verdict::faster), r.count(Verdict::slower),
             r.count(Verdict::same), r.count(Verdict::noisy));
  if (logs > 0)
    fmt::print("# geometric mean of new/base time: {:.3f}\n", std::exp(log_sum / logs));
  if (!r.only_base.empty() || !r.only_next.empty())
    fmt::print("# not compared: {} only in {}, {} only in {}\n", r.only_base.size(), o.base,
               r.only_next.size(), o.next);
  if (r.count(Verdict::noisy) > 0)
    fmt::print(stderr,
               "collbench compare: {} configuration(s) differ by more than {:g}% but their CIs "
               "overlap: the runs are too noisy to tell (more samples: -n or --time-budget; a "
               "quieter machine)\n",
               r.count(Verdict::noisy), threshold * 100);
  if (r.count(Verdict::slower) > 0) {
    fmt::print(stderr, "collbench compare: REGRESSION: {} configuration(s) slower than {}\n",
               r.count(Verdict::slower), o.base);
    return kExitFailed;
  }
  return 0;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Regression check of two results CSVs: match configurations, compare medians with their "
      "CIs, exit 1 if any is slower beyond its CI and --threshold");
  cmd->add_option("BASE", o->base, "Results CSV of the reference run")->required();
  cmd->add_option("NEW", o->next, "Results CSV of the run to check")->required();
  cmd->add_option("--threshold", o->threshold,
                  "Smallest change that counts: a percentage (5%) or a fraction (0.05)")
      ->capture_default_str();
  cmd->add_flag("--changed", o->changed, "Print only configurations that are not `same`");
  return {cmd, [o] { return compare(*o); }};
}

}  // namespace cb
