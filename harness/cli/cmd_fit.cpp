// `collbench fit results.csv [--calibration FILE] [--out DIR]`: fits the
// alpha-beta-gamma model to a results CSV and grades it (models/fit_run.hpp).
// Everything is validated before anything is written; the CSVs appear
// together or not at all. model-report.md is then rendered from them by
// scripts/model_report.py (C++ computes, Python renders), so a failure there
// leaves the CSVs and exits with the script's status.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "harness/cli/commands.hpp"
#include "harness/cli/mpich_default_tree.hpp"
#include "harness/cli/python_scripts.hpp"
#include "harness/runtime/heap_reuse.hpp"
#include "models/crossover.hpp"
#include "models/csv_text.hpp"
#include "models/fit_run.hpp"
#include "models/targets.hpp"
#include "transports/sim/simulator.hpp"

namespace cb {
namespace {

struct FitOptions {
  std::string results;
  std::vector<std::string> calibrations;
  std::string out;
  std::uint64_t seed = 20261121;
  bool mpich_json = false;
  std::string mpich_default;
  std::string network, stack_overhead;
  std::vector<std::string> libraries;
  bool simulate = false;
};

// `--simulate`: one case on the simulator (its default asynchronous model,
// the exact fast path where it applies), as `run --transport sim --params
// CALIBRATION --ranks-per-node K` prices it: the calibration's network
// alpha, beta, gamma between nodes and its intra-node alpha, beta inside
// one. Defined here because transports/sim sits above models.
double simulate_on_levels(const AlgorithmEntry& algo, const CollParams& params,
                          const models::ModelParams& levels) {
  sim::NetworkParams net;
  net.alpha_s = levels.alpha_s;
  net.beta_s_per_B = levels.beta_s_per_B;
  net.gamma_s_per_B = levels.gamma_s_per_B;
  net.ranks_per_node = params.ranks_per_node;
  net.intra_alpha_s = levels.intra_alpha_s;
  net.intra_beta_s_per_B = levels.intra_beta_s_per_B;
  net.network_gap_s = levels.network_gap_s;
  sim::validate(net);
  return sim::simulate(algo, params, net).time_s;
}

std::string_view verdict(std::string_view met) {
  return met == "1" ? "met" : met == "0" ? "missed" : "not judged";
}
std::string us(double s) { return fmt::format("{:.3g} us", s * 1e6); }
std::string gbps(double s_per_B) {
  return s_per_B > 0 ? fmt::format("{:.3g} GB/s", 1e-9 / s_per_B) : std::string("unbounded");
}

int fit(const FitOptions& o) {
  keep_freed_heap_memory();
  models::FitRequest req;
  req.results_csv = o.results;
  req.calibration_files = o.calibrations;
  req.out_dir = o.out.empty() ? std::filesystem::path(o.results).parent_path().string() : o.out;
  if (req.out_dir.empty()) req.out_dir = ".";
  req.seed = o.seed;
  req.network_file = o.network;
  req.overhead_calibration = o.stack_overhead;
  req.library_files = o.libraries;
  if (o.simulate) req.simulate = simulate_on_levels;
  if (o.mpich_json || !o.mpich_default.empty())
    req.mpich_default_tree = mpich_default_tree(o.mpich_default, "--mpich-json");
  const models::FitRun run = models::run_fit(req);

  const models::Analysis& a = run.analysis;
  fmt::print("fitted {} rows, {} configurations from {}\n", a.rows, a.configs.size(),
             a.source_file);
  const models::AnalysisOptions defaults;
  const std::size_t knee_points = models::KneeOptions{}.max_exact_points;
  if (a.config_resamples < defaults.config_resamples || a.knee_exact_points < knee_points)
    fmt::print("  large file (models/README.md, Scale): per-configuration lines with {} bootstrap "
               "resamples (default {}), knees searched on at most {} groups of sizes (default {})\n",
               a.config_resamples, defaults.config_resamples, a.knee_exact_points, knee_points);
  for (const models::TransportFit& tf : a.transports) {
    if (!tf.fit) {
      fmt::print("  {}: no global fit (no usable schedule rows)\n", tf.transport);
      continue;
    }
    const models::GlobalFit& g = *tf.fit;
    fmt::print("  {} (global, {} rows): alpha {}, bandwidth 1/beta {}, reduce 1/gamma {}, R2 {:.4f}\n",
               tf.transport, g.points, g.identified[0] ? us(g.params.alpha_s) : "not identified",
               g.identified[1] ? gbps(g.params.beta_s_per_B) : "not identified",
               g.identified[2] ? gbps(g.params.gamma_s_per_B) : "not identified", g.r_squared);
  }
  for (const models::CalibrationInput& c : a.calibrations)
    fmt::print("  {} (calibration {}): alpha {}, bandwidth 1/beta {}, reduce 1/gamma {}\n",
               c.transport, c.file, us(c.params.alpha_s), gbps(c.params.beta_s_per_B),
               gbps(c.params.gamma_s_per_B));
  // Every row's grades; a testbed's link-limited ones are in accuracy.csv.
  for (const models::Grade& g : a.grades)
    if (g.targets == &models::kTargetsAllRows)
      fmt::print("  {} {}: median |err| {:.1f}% >= {}, {:.1f}% below; worst collective {} "
                 "{:.1f}%; picks within CI {}/{}; median regret {:.1f}%\n",
                 g.transport, g.params, 100 * g.median_large,
                 models::crossover_size_text(models::kLargeBytes), 100 * g.median_small,
                 g.worst_collective, 100 * g.worst_collective_median, g.picks_right, g.picks,
                 100 * g.median_regret);
  for (const models::Grade& g : a.grades)
    if (g.params == models::kBySimulator)
      fmt::print(
          "  {} {} {} ({} rows >= {}): median |simulated/measured - 1| {:.1f}%, signed "
          "{:+.1f}%, target {:.0f}%: {}\n",
          g.transport, g.params, g.targets->scope, g.rows_large,
          models::crossover_size_text(models::kLargeBytes), 100 * g.median_large,
          100 * g.median_signed_large, 100 * g.targets->median_abs_err_large,
          verdict(models::met_cell(g.median_large, g.targets->median_abs_err_large)));
  if (!run.mpich_params.empty())
    fmt::print("MPICH selection from the {} (use: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE "
               "MPIR_CVAR_DEVICE_COLLECTIVES=none)\n",
               run.mpich_params);
  for (const std::string& p : run.written) fmt::print("wrote {}\n", p);
  std::fflush(stdout);  // before the script's own lines, if any
  const int status = run_script("model_report.py", {req.out_dir});
  if (status == 0)
    fmt::print("wrote {}\n",
               (std::filesystem::path(req.out_dir) / models::kModelReportFile).string());
  return status;
}

}  // namespace

Command add_fit_command(CLI::App& app) {
  auto o = std::make_shared<FitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fit",
      "Fit the alpha-beta-gamma model to a results CSV: fit.csv, predictions.csv, "
      "crossovers.csv, accuracy.csv, errors.csv, summary.csv and model-report.md (rendered by "
      "scripts/model_report.py)");
  cmd->add_option("results", o->results, "results CSV written by `collbench run --csv`")
      ->required();
  cmd->add_option("--calibration", o->calibrations,
                  "parameters from `collbench calibrate` (or a fit.csv): also predict every row "
                  "of that transport from them alone (out-of-sample); repeat for several "
                  "transports");
  cmd->add_option("--out", o->out, "output directory (default: the results file's directory)");
  cmd->add_option("--seed", o->seed, "seed of the bootstrap resampling")->capture_default_str();
  cmd->add_flag("--mpich-json", o->mpich_json,
                "also write mpich-selection.json: the model's best algorithms as an MPICH "
                "selection tree (from the calibration, else the mpi global fit)");
  cmd->add_option("--mpich-default", o->mpich_default,
                  "MPICH default selection tree to start from (default: the one in libmpich); "
                  "implies --mpich-json");
  cmd->add_option("--network", o->network,
                  "a configured network's setting.txt (latency_us=, bandwidth_bps=, cores=; "
                  "scripts/testbed/): also write link-limited.csv, which rows the CPU rather "
                  "than the link limits (models/link_limits.hpp), grade the rest against the "
                  "testbed's targets (accuracy.csv scope link-limited, crossovers.csv verdicts, "
                  "network.csv, link-errors.csv per algorithm; models/link_grades.hpp) and "
                  "write the levels the testbed report shows (report-levels.csv); needs "
                  "--stack-overhead");
  cmd->add_option("--stack-overhead", o->stack_overhead,
                  "a calibration taken with the network's delay at 0: its alpha is the stack's "
                  "own per-message overhead (with --network)");
  cmd->add_option("--library", o->libraries,
                  "results CSV of the library's own collective only (e.g. MPICH with an "
                  "algorithm forced by CVARs: its library_setting column names it): another "
                  "library contender in families.csv, the fastest hierarchical and flat "
                  "schedule against the library's fastest per size on a two-level layout "
                  "(models/families.hpp); repeat for several");
  cmd->add_flag(
      "--simulate", o->simulate,
      "also price every schedule row on two levels (2 or more nodes of 2 or more "
      "ranks) on the simulator with the two-level --calibration's levels: "
      "simulated.csv (simulated against measured per row) and accuracy.csv's rows of "
      "params simulator, scopes sim-hierarchical and sim-flat (models/sim_agreement.hpp)");
  return {cmd, [o] { return fit(*o); }};
}

}  // namespace cb
