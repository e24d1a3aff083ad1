#include "models/fit_run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "models/io/output_file.hpp"
#include "models/io/output_lock.hpp"
#include "models/calibration.hpp"
#include "models/families.hpp"
#include "models/link_grades.hpp"
#include "models/latency_rounds.hpp"
#include "models/link_limits.hpp"
#include "models/memory_rows.hpp"
#include "models/miss_classes.hpp"
#include "models/mpich_selection.hpp"
#include "models/outputs.hpp"
#include "models/report_levels.hpp"
#include "models/summary_csv.hpp"

namespace cb::models {

std::vector<std::string> write_files_atomically(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError(fmt::format("cannot create directory {}: {}", dir, ec.message()));
  // Every file is written in full before any is renamed into place, so a
  // failure leaves the earlier set of files as it was (and no temporaries).
  std::vector<std::unique_ptr<io::OutputFile>> outputs;
  std::vector<std::string> finals;
  for (const auto& [name, text] : files) {
    finals.push_back((fs::path(dir) / name).string());
    outputs.push_back(std::make_unique<io::OutputFile>(finals.back(), "--out", false));
    outputs.back()->write(text);
  }
  for (auto& out : outputs) out->commit();
  return finals;
}

namespace {

// The --calibration files, at most one per transport.
std::vector<CalibrationInput> read_calibrations(const std::vector<std::string>& files) {
  std::vector<CalibrationInput> out;
  for (const std::string& file : files) {
    CalibrationInput c;
    c.file = file;
    c.params = load_model_params(file, std::nullopt, &c.transport);
    c.terms = load_model_terms(file);
    for (const CalibrationInput& other : out)
      if (other.transport == c.transport)
        throw UsageError(fmt::format("--calibration {} and {} both calibrate transport {} (give "
                                     "one per transport)",
                                     other.file, file, c.transport));
    out.push_back(std::move(c));
  }
  return out;
}

// mpich-selection.json's text, with the calibration of transport mpi, else
// the mpi transport's global fit, else the only transport's; `used` names
// which.
std::string mpich_export(const FitRequest& req, const Analysis& a, std::string& used) {
  std::optional<ModelParams> params;
  for (const CalibrationInput& c : a.calibrations)
    if (c.transport == "mpi") {
      params = c.params;
      used = fmt::format("calibration {}", c.file);
    }
  for (const TransportFit& tf : a.transports)
    if (!params && tf.fit && (tf.transport == "mpi" || a.transports.size() == 1)) {
      params = tf.fit->params;
      used = fmt::format("global fit of transport {}", tf.transport);
    }
  if (!params)
    throw UsageError(fmt::format("{}: no parameters for the MPICH export: give --calibration "
                                 "or results with schedule rows of transport mpi (or of one "
                                 "transport only)",
                                 req.results_csv));
  return mpich_selection(*req.mpich_default_tree, *params).dump(2) + "\n";
}

// An input named as one of the outputs would be replaced by what was
// computed from it (`fit d/fit.csv --out d` once did).
void refuse_input_as_output(const FitRequest& req, const std::vector<std::string>& names) {
  std::vector<std::string> inputs = req.calibration_files;
  inputs.insert(inputs.end(), req.library_files.begin(), req.library_files.end());
  inputs.push_back(req.results_csv);
  for (const std::string& name : names) {
    const std::string path = (std::filesystem::path(req.out_dir) / name).string();
    for (const std::string& in : inputs)
      if (io::same_output(path, in))
        throw UsageError(fmt::format("--out {} would replace the input {} with the new {} "
                                     "(accepted: another --out directory)",
                                     req.out_dir, in, name));
  }
}

// The model prices collectives whose ranks start together; a row measured
// under a pattern holds the skew too, which no term explains.
void refuse_arrival_rows(const ResultsFile& results) {
  for (const Measurement& m : results.rows)
    if (!m.arrival.empty())
      throw UsageError(fmt::format(
          "{}:{}: measured under --arrival {}: fit models ranks that start together (fit a "
          "sweep without --arrival; `predict --arrival` prices a pattern)",
          results.file, m.line, m.arrival));
}

// --library files: rows of the library's own collective only (their baselines).
std::vector<ResultsFile> read_library_files(const std::vector<std::string>& files) {
  std::vector<ResultsFile> libraries;
  for (const std::string& file : files) {
    libraries.push_back(read_results_csv(file));
    for (const Measurement& m : libraries.back().rows)
      if (m.entry)
        throw UsageError(
            fmt::format("{}:{}: algorithm {} is a schedule (accepted in --library: "
                        "rows of the library's own collective, mpi or nccl)",
                        file, m.line, m.algorithm));
  }
  return libraries;
}

}  // namespace

FitRun run_fit(const FitRequest& req) {
  const ResultsFile results = read_results_csv(req.results_csv);
  refuse_arrival_rows(results);
  AnalysisOptions opt;
  opt.seed = req.seed;
  opt.calibrations = read_calibrations(req.calibration_files);
  // The shared-memory transport's calibration gives the memory bound its bandwidth.
  double shared_memory_copy_GBps = 0;
  for (const CalibrationInput& c : opt.calibrations)
    if (c.transport == kSharedMemoryTransport) shared_memory_copy_GBps = copy_GBps_of(c.file);
  // Checked (and simulated) before the analysis, whose work it would waste.
  std::optional<SimAgreement> simulated;
  if (req.simulate)
    simulated = sim_agreement(results.rows, opt.calibrations, req.simulate, results.file);
  if (req.network_file.empty() != req.overhead_calibration.empty())
    throw UsageError("--network and --stack-overhead go together: the network's setting.txt and "
                     "the calibration whose alpha is the stack's own overhead");
  std::optional<NetworkSetting> net;
  if (!req.network_file.empty())
    net = read_network_setting(req.network_file, req.overhead_calibration);
  const std::vector<ResultsFile> libraries = read_library_files(req.library_files);
  FitRun run{analyze(results, opt), {}, {}};
  std::vector<LinkRow> links;
  if (net) {
    links = link_rows(results, *net);
    grade_link_limited(run.analysis, links);
  }
  // After every other grade, so that accuracy.csv's other rows keep their order.
  if (simulated)
    for (const Grade& g : simulated->grades) run.analysis.grades.push_back(g);
  std::vector<std::pair<std::string, std::string>> files = {
      {"fit.csv", fit_csv(run.analysis)},
      {"predictions.csv", predictions_csv(run.analysis)},
      {"crossovers.csv", crossovers_csv(run.analysis)},
      {"accuracy.csv", accuracy_csv(run.analysis)},
      {"errors.csv", errors_csv(run.analysis)},
      {"summary.csv", summary_csv(run.analysis)},
  };
  std::vector<const Measurement*> contenders;
  for (const Measurement& m : results.rows) contenders.push_back(&m);
  for (const ResultsFile& f : libraries)
    for (const Measurement& m : f.rows) contenders.push_back(&m);
  if (std::string families = families_csv(contenders); !families.empty())
    files.emplace_back("families.csv", std::move(families));
  if (const auto memory = memory_rows(results, shared_memory_copy_GBps); !memory.empty())
    files.emplace_back("memory-bound.csv", memory_rows_csv(memory));
  if (net) {
    files.emplace_back("link-limited.csv", link_rows_csv(links, *net));
    files.emplace_back("link-errors.csv", link_errors_csv(run.analysis, links));
    files.emplace_back("report-levels.csv", report_levels_csv(run.analysis));
    files.emplace_back("network.csv", network_csv(run.analysis, *net));
    if (!opt.calibrations.empty())
      files.emplace_back("calibrated-link.csv", calibrated_link_csv(opt.calibrations, *net));
    files.emplace_back("latency-rounds.csv", latency_rounds_csv(links, *net));
    files.emplace_back("miss-classes.csv", miss_classes_csv(run.analysis, results, links, *net));
  }
  if (simulated) files.emplace_back("simulated.csv", simulated_csv(*simulated));
  if (req.mpich_default_tree)
    files.emplace_back("mpich-selection.json", mpich_export(req, run.analysis, run.mpich_params));
  std::vector<std::string> names;
  for (const auto& file : files) names.push_back(file.first);
  names.push_back(kModelReportFile);  // rendered from these files afterwards
  refuse_input_as_output(req, names);
  // A destination the report could not replace (a link, a directory, a
  // device) is refused now, before any file is written.
  const std::string report = (std::filesystem::path(req.out_dir) / kModelReportFile).string();
  std::error_code ec;
  if (std::filesystem::symlink_status(report, ec).type() != std::filesystem::file_type::not_found)
    io::check_output_path(report, "--out");
  run.written = write_files_atomically(req.out_dir, files);
  return run;
}

}  // namespace cb::models
