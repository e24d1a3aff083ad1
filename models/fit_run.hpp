// `collbench fit` without the command line: read and validate the results
// (and the calibrations), analyse, then write fit.csv, predictions.csv,
// crossovers.csv, accuracy.csv, errors.csv and summary.csv (outputs.hpp,
// summary_csv.hpp) into the output directory. All input problems are found
// before anything is written, and every file is written to a temporary name
// first and renamed into place, so a failed run leaves no partial output.
// model-report.md is not written here: scripts/model_report.py renders it
// from these files (C++ computes, Python renders; `collbench fit` runs it).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/analysis.hpp"
#include "models/sim_agreement.hpp"

namespace cb::models {

struct FitRequest {
  std::string results_csv;
  // collbench calibrate outputs (or a fit.csv), at most one per transport.
  std::vector<std::string> calibration_files;
  std::string out_dir = ".";
  std::uint64_t seed = 20261121;
  // When set: also write mpich-selection.json (mpich_selection.hpp) from this
  // default tree, with the calibration's parameters if given, else the global
  // fit of transport mpi, else that of the only transport fitted.
  std::optional<nlohmann::ordered_json> mpich_default_tree;
  // When set (both): also write link-limited.csv (link_limits.hpp), each
  // schedule row priced against the network of `network_file` (a testbed's
  // setting.txt) with the stack overhead of `overhead_calibration`.
  std::string network_file, overhead_calibration;
  // Results CSVs of library baselines only (e.g. MPICH under forced
  // algorithms, one library_setting each): contenders beside the sweep's own
  // library rows in families.csv (families.hpp), written for two-level rows.
  std::vector<std::string> library_files;
  // When set (`fit --simulate`): also price every schedule row on two levels
  // with this simulator and the calibration's two levels (sim_agreement.hpp):
  // simulated.csv and accuracy.csv's rows of params "simulator". A run
  // without such rows or calibration is refused before anything is written.
  SimulateFn simulate;
};

struct FitRun {
  Analysis analysis;
  std::vector<std::string> written;  // paths, in the order written
  std::string mpich_params;          // which parameters the MPICH export used ("" = none)
};

// The report rendered from the fit's files (scripts/model_report.py); run_fit
// refuses an input of that name in the output directory as for its own files.
inline constexpr const char* kModelReportFile = "model-report.md";

FitRun run_fit(const FitRequest& req);

// Writes each (file name, contents) into `dir` (created if missing) through a
// temporary file and rename; on any failure the temporaries are removed and
// a UsageError names the path and the reason.
std::vector<std::string> write_files_atomically(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace cb::models
