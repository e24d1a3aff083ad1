// `collbench plot FILE.csv|DIR [--out DIR]` and `collbench report DIR [--spread]`: the
// plotting and report scripts reached from the CLI, for one run's CSV as well
// as a whole study directory (python_scripts.hpp finds them). The scripts
// exit with the CLI's statuses (2 bad input, 4 a failed write: commands.hpp)
// and print their one line themselves, so their status is passed on as is.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "harness/cli/commands.hpp"
#include "harness/cli/python_scripts.hpp"
#include "models/fit_run.hpp"
#include "models/io/output_file.hpp"
#include "models/spread_judge.hpp"
#include "models/spread_probes.hpp"
#include "models/study_checks.hpp"

namespace cb {

Command add_plot_command(CLI::App& app) {
  struct Options {
    std::string input, out;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "plot", "Draw the plots of a results CSV, a map CSV or a study directory (scripts/plot.py)");
  cmd->add_option("INPUT", o->input, "A results CSV of run, a map CSV of map, or a directory")
      ->required();
  cmd->add_option("--out", o->out, "Where the PNGs go (default: plots/ next to INPUT)");
  return {cmd, [o] {
            std::vector<std::string> args = {o->input};
            if (!o->out.empty()) args.insert(args.end(), {"--out", o->out});
            return run_script("plot.py", args);
          }};
}

Command add_report_command(CLI::App& app) {
  struct Options {
    std::string dir, level;
    bool spread = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write DIR/checks.csv (calibration drift and load, models/study_checks.hpp) and each "
      "DIR/spread-T/over-pairs.csv (the medians over a model spread's pairs judged against the "
      "targets, models/spread_judge.hpp), draw DIR/plots and write DIR/report.md (the "
      "recommendation, winners maps, how well α-β predicts them, the library comparison; the "
      "evidence in an appendix) (scripts/plot.py, scripts/report.py)");
  cmd->add_option("DIR", o->dir, "A study directory or a directory of results CSVs")->required();
  cmd->add_flag("--spread", o->spread,
                "DIR is a model spread (scripts/model_spread.sh): write DIR/over-pairs.csv and "
                "DIR/probes.csv only");
  cmd->add_option("--level", o->level,
                  "With --spread: the level the summary shows beside the baseline (default: the "
                  "richest without term probe, models/spread_judge.hpp)")
      ->needs("--spread");
  return {cmd, [o] {
            const std::string& dir = o->dir;
            if (o->spread) {
              // Judged whole before anything is written: a bad pair leaves no file.
              models::write_files_atomically(
                  dir, {{"over-pairs.csv", models::spread_judge_csv(dir, o->level)},
                        {"probes.csv", models::spread_probes_csv(dir)}});
              return 0;
            }
            // Refused before the plots are drawn: a planted report.md must not
            // leave a "written" line ahead of the refusal (one line, exit 2).
            // Then the checks report.py shows (calibration drift, load, the
            // spread's medians), judged here in C++; a path that is no
            // directory is report.py's to refuse.
            if (std::filesystem::is_directory(dir)) {
              io::check_output_path(dir + "/report.md", "report DIR/report.md");
              models::write_files_atomically(dir,
                                             {{"checks.csv", models::study_checks_csv(dir)}});
              for (const char* t : {"spread-mpi", "spread-ipc"}) {
                const std::string spread = dir + "/" + t;
                if (std::filesystem::exists(spread + "/pair-1/fit/accuracy.csv"))
                  models::write_files_atomically(
                      spread, {{"over-pairs.csv", models::spread_judge_csv(spread)}});
              }
            }
            int status = run_script("plot.py", {dir});
            if (status == 0) status = run_script("report.py", {dir});
            return status;
          }};
}

}  // namespace cb
