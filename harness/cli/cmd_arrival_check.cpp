// `collbench arrival-check RESULTS.csv --params CAL.csv [--terms NAMES |
// --all-terms] --out DIR`: the validation of the arrival model
// (docs/stragglers.md). Every schedule row measured under a pattern
// (`run --arrival`) is priced as `predict --arrival` prices it (the same
// function, transports/sim/arrival_price.hpp), and models/arrival_accuracy
// grades the predictions: the error of the time after the last arrival, the
// most tolerant pick per cell, the skew crossovers along the delay.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli/commands.hpp"
#include "models/arrival_accuracy.hpp"
#include "models/calibration.hpp"
#include "models/crossover.hpp"
#include "models/fit_run.hpp"
#include "models/results_csv.hpp"
#include "models/terms.hpp"
#include "transports/contract/arrival.hpp"
#include "transports/contract/stats.hpp"
#include "transports/sim/arrival_price.hpp"
#include "transports/sim/cli_options.hpp"

namespace cb {
namespace {

struct ArrivalCheckOptions {
  std::string results, out;
  SimFlags model;
  bool all_terms = false;
  std::uint64_t seed = 1;
};

// --all-terms: every term the --params calibration measured, as --terms names them.
void apply_all_terms(ArrivalCheckOptions& o) {
  if (!o.all_terms) return;
  if (!o.model.terms.empty()) throw UsageError("--all-terms and --terms exclude each other");
  if (o.model.params_file.empty()) throw UsageError("--all-terms needs --params CAL.csv");
  const models::ModelTerms t = models::load_model_terms(o.model.params_file);
  const models::TermSet use = models::measured_terms(models::ablation_levels().back(), t);
  o.model.terms = models::term_set_text(use);
}

// The pattern's kind: its text before the first ':' ("one-late", "uniform").
std::string kind_of(const std::string& arrival) { return arrival.substr(0, arrival.find(':')); }

std::vector<models::ArrivalCase> price_rows(const ArrivalCheckOptions& o,
                                            const models::ResultsFile& file) {
  const std::optional<PricedTerms> priced = resolve_terms(o.model);
  const sim::NetworkParams net = resolve_network(o.model);
  const sim::SimOptions options = resolve_sim_options(o.model);
  std::vector<models::ArrivalCase> cases;
  for (const models::Measurement& m : file.rows) {
    if (m.arrival.empty() || m.entry == nullptr) continue;  // no pattern, or a library baseline
    const auto fail = [&](const std::string& what) {
      return UsageError(fmt::format("{}:{}: {}", file.file, m.line, what));
    };
    if (!std::isfinite(m.after_last_s) || !std::isfinite(m.after_last_ci_lo_s) ||
        !std::isfinite(m.after_last_ci_hi_s))
      throw fail("a row under a pattern needs after_last_median_us, after_last_ci_lo_us and "
                 "after_last_ci_hi_us (measured by this version's run --arrival)");
    if (m.after_last_s <= 0) throw fail(fmt::format("after_last_median_us is {} (must be > 0)",
                                                    m.after_last_s * 1e6));
    const ArrivalPattern pattern = ArrivalPattern::parse(m.arrival, o.seed);
    pattern.check_ranks(m.scenario.p);
    const PricedArrival a =
        price_arrival(*m.entry, models::coll_params(m.scenario, m.count), net, options, priced,
                      pattern, arrival_draws(pattern, 0));
    models::ArrivalCase c;
    c.transport = m.transport;
    c.coll = m.scenario.coll;
    c.ranks = m.scenario.p;
    c.bytes = m.bytes;
    c.arrival = m.arrival;
    c.kind = kind_of(m.arrival);
    c.delay_s = pattern.max_delay_s();
    c.algorithm = m.algorithm;
    c.measured = {m.after_last_s, m.after_last_ci_lo_s, m.after_last_ci_hi_s};
    c.noskew_s = m.noskew_s;
    c.predicted_s = summarize(a.after_last_s).median;
    cases.push_back(std::move(c));
  }
  if (cases.empty())
    throw UsageError(fmt::format("{}: no schedule row measured under a pattern (run --arrival)",
                                 file.file));
  return cases;
}

std::string percent(double f) { return std::isnan(f) ? "-" : fmt::format("{:.1f}%", 100 * f); }
std::string verdict(bool met) { return met ? "met" : "missed"; }

void arrival_check(ArrivalCheckOptions o) {
  apply_all_terms(o);
  // One size per configuration is enough here: the axis is the delay.
  const models::ResultsFile file = models::read_results_csv(o.results, 1);
  const std::vector<models::ArrivalCase> cases = price_rows(o, file);
  const models::ArrivalAccuracy acc = models::grade_arrival(cases);
  models::write_files_atomically(
      o.out, {{"arrival-cases.csv", models::arrival_cases_csv(cases)},
              {"arrival-picks.csv", models::arrival_picks_csv(acc.picks)},
              {"arrival-crossovers.csv", models::arrival_crossovers_csv(acc.crossovers)},
              {"arrival-summary.csv", models::arrival_summary_csv(acc.summaries)}});
  fmt::print("# arrival check of {} with {} ({}): time after the last arrival\n", o.results,
             o.model.params_file.empty() ? std::string("the flags' parameters") : o.model.params_file,
             o.model.terms.empty() ? std::string("discrete-event simulation, alpha-beta-gamma")
                                   : "terms " + o.model.terms);
  for (const models::ArrivalSummary& s : acc.summaries) {
    fmt::print("{}: median |err| {} at >= {} ({} rows; target <= {:.0f}%: {}), {} below ({} "
               "rows); most tolerant picked within the CI in {} of {} cells ({}; target >= "
               "{:.0f}%: {}; the measurement tied {} of a cell's algorithms on average); skew "
               "crossovers predicted within {:g}x: {} of {} ({}; the model crosses {} times)\n",
               s.scope, percent(s.median_err_large),
               models::crossover_size_text(static_cast<double>(models::kArrivalLargeBytes)),
               s.rows_large,
               100 * models::kArrivalErrTarget, verdict(s.err_met()), percent(s.median_err_small),
               s.rows_small, s.picks_right, s.cells, percent(s.picks_right_fraction()),
               100 * models::kArrivalPickTarget, verdict(s.picks_met()),
               percent(s.mean_tied_fraction), models::kArrivalCrossoverFactor,
               s.crossovers_within_2x,
               s.crossovers, percent(s.crossovers_within_fraction()), s.predicted_crossovers);
  }
  fmt::print("# written: {}/arrival-{{cases,picks,crossovers,summary}}.csv\n", o.out);
}

}  // namespace

Command add_arrival_check_command(CLI::App& app) {
  auto o = std::make_shared<ArrivalCheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "arrival-check",
      "Grade the arrival model against rows measured under patterns (run --arrival): error of "
      "the time after the last arrival, most tolerant pick, skew crossovers (docs/stragglers.md)");
  cmd->add_option("RESULTS", o->results, "a results CSV of run --arrival")->required();
  add_model_param_flags(*cmd, o->model, "");
  cmd->add_flag("--all-terms", o->all_terms,
                "price with every term the --params calibration measured");
  cmd->add_option("--seed", o->seed, "the seed the rows' uniform patterns were drawn with")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "directory for the arrival-*.csv files")->required();
  return {cmd, [o] {
            arrival_check(*o);
            return 0;
          }};
}

}  // namespace cb
