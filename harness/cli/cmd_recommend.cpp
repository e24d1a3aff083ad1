// `collbench recommend RESULTS... [--calibration CAL ...] [--out DIR]
// [--min-effect FRACTION]`: which algorithm to use at which size, from what
// was measured (docs/recommend.md). This file finds the inputs, labels their
// settings and prints; models/recommend.hpp decides.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "harness/cli/commands.hpp"
#include "harness/cli/mpich_default_tree.hpp"
#include "models/calibration.hpp"
#include "models/crossover.hpp"
#include "models/csv_text.hpp"
#include "models/fit_run.hpp"
#include "models/recommend.hpp"
#include "models/targets.hpp"

namespace cb {
namespace {

namespace fs = std::filesystem;

struct RecommendOptions {
  std::vector<std::string> results;
  std::vector<std::string> calibrations;
  std::string out;
  double min_effect = models::kMinEffect;
  std::vector<int> predict_ranks;
  std::string mpich_default;
};

// What a terminal line may hold.
constexpr std::size_t kColumns = 100;

std::vector<fs::path> sweeps_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.starts_with("sweep") && name.ends_with(".csv"))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A file as given; a directory: its sweep*.csv, else its subfolders' (a
// testbed run: one folder per network setting).
std::vector<fs::path> input_files(const std::vector<std::string>& args) {
  std::vector<fs::path> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (!fs::exists(a, ec)) throw UsageError(fmt::format("recommend: {}: no such file or directory", a));
    if (!fs::is_directory(a, ec)) {
      out.emplace_back(a);
      continue;
    }
    std::vector<fs::path> found = sweeps_in(a);
    if (found.empty()) {
      std::vector<fs::path> subs;
      for (const auto& e : fs::directory_iterator(a, ec))
        if (e.is_directory()) subs.push_back(e.path());
      std::sort(subs.begin(), subs.end());
      for (const fs::path& s : subs)
        for (fs::path f : sweeps_in(s)) found.push_back(std::move(f));
    }
    if (found.empty())
      throw UsageError(fmt::format("recommend: {}: no sweep*.csv in it or in its subfolders "
                                   "(give results CSVs of collbench run --csv)",
                                   a));
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// Files that share a transport measured different settings: label them by
// their folder (the testbed's "2ms-200Mbit"), or by file name when they share it.
std::vector<models::RecommendInput> read_inputs(const std::vector<fs::path>& files) {
  std::vector<models::RecommendInput> in;
  std::map<std::string, std::vector<std::size_t>> by_transport;
  for (const fs::path& f : files) {
    in.push_back({"", models::read_results_csv(f.string(), 1)});
    std::set<std::string> transports;
    for (const models::Measurement& m : in.back().results.rows) transports.insert(m.transport);
    for (const std::string& t : transports) by_transport[t].push_back(in.size() - 1);
  }
  for (const auto& [t, idx] : by_transport) {
    if (idx.size() < 2) continue;
    std::set<std::string> folders;
    for (std::size_t i : idx) folders.insert(files[i].parent_path().filename().string());
    for (std::size_t i : idx)
      in[i].setting = folders.size() == idx.size() ? files[i].parent_path().filename().string()
                                                   : files[i].stem().string();
  }
  return in;
}

// "median |err| 5.0% >= 64 KiB, 4.9% below (fit/accuracy.csv)" from the fit
// beside a calibration, "" when there is none.
std::string validated_error(const fs::path& cal, const std::string& transport) {
  for (const fs::path& rel : {fs::path("fit") / "accuracy.csv", fs::path("accuracy.csv")}) {
    const fs::path file = cal.parent_path() / rel;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    const models::CsvTable t(models::read_text_file(file.string()), file.string());
    for (const models::CsvRecord& r : t.rows())
      if (t.cell(r, "params") == "calibration" && t.cell(r, "transport") == transport &&
          (!t.has("scope") || t.cell(r, "scope") == models::kTargetsAllRows.scope)) {
        const auto pct = [&](const char* column) {
          const double v = std::strtod(t.cell(r, column).c_str(), nullptr);
          return fmt::format("{:.1f}%", 100 * v);
        };
        return fmt::format("median |err| {} >= {}, {} below ({})", pct("median_abs_err_large"),
                           models::crossover_size_text(models::kLargeBytes),
                           pct("median_abs_err_small"), rel.string());
      }
  }
  return {};
}

std::vector<models::RecommendModel> read_models(const std::vector<std::string>& files,
                                                const std::vector<fs::path>& inputs,
                                                const std::vector<models::RecommendInput>& in) {
  std::vector<models::RecommendModel> out;
  for (const std::string& f : files) {
    models::RecommendModel m;
    m.file = f;
    m.params = models::load_model_params(f, std::nullopt, &m.transport);
    // A calibration beside a labelled input predicts that setting only.
    std::error_code ec;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (!in[i].setting.empty() &&
          fs::equivalent(inputs[i].parent_path(), fs::path(f).parent_path(), ec))
        m.setting = in[i].setting;
    m.validated_error = validated_error(f, m.transport);
    out.push_back(std::move(m));
  }
  return out;
}

void recommend(const RecommendOptions& o) {
  if (!(o.min_effect >= 0 && o.min_effect < 1))
    throw UsageError(fmt::format("--min-effect {}: accepted: a fraction from 0 to below 1 (0.05 "
                                 "= 5%)",
                                 o.min_effect));
  for (int p : o.predict_ranks)
    if (p < 2)
      throw UsageError(fmt::format("--predict-ranks {}: accepted: rank counts >= 2", p));
  const std::vector<fs::path> files = input_files(o.results);
  const std::vector<models::RecommendInput> inputs = read_inputs(files);
  const std::vector<models::RecommendModel> cals = read_models(o.calibrations, files, inputs);
  // Without a model --predict-ranks would be ignored in silence.
  if (cals.empty() && !o.predict_ranks.empty())
    throw UsageError(fmt::format("--predict-ranks {} needs a model to predict with (accepted with "
                                 "--calibration FILE, or a calibration beside the results)",
                                 o.predict_ranks.front()));
  const std::vector<models::Recommendation> recs =
      models::recommend(inputs, cals, {o.min_effect, o.predict_ranks});

  // Everything is computed before anything is written or printed.
  std::vector<std::pair<std::string, std::string>> outputs;
  if (!o.out.empty()) {
    outputs = {{"recommendations.csv", models::recommendations_csv(recs)},
               {"winners.csv", models::winners_csv(recs)}};
    const std::vector<std::string> settings = models::mpi_settings(recs);
    if (!settings.empty()) {
      const nlohmann::ordered_json tree = mpich_default_tree(o.mpich_default, "recommend --out");
      for (const std::string& s : settings) {
        const std::string suffix = settings.size() == 1 ? "" : "-" + s;
        outputs.emplace_back(fmt::format("selection{}.json", suffix),
                             models::recommended_selection(tree, inputs, s, o.min_effect).dump(2) +
                                 "\n");
        // The same decisions with every algorithm collbench has (naive ...),
        // for libcollbench-pmpi.so; MPICH cannot read it.
        outputs.emplace_back(
            fmt::format("collbench-selection{}.json", suffix),
            models::recommended_selection(tree, inputs, s, o.min_effect, true).dump(2) + "\n");
      }
    }
  }

  const models::AnswerLines answer = models::answer_lines(recs, kColumns);
  std::vector<std::string> lines;
  lines.push_back(fmt::format("# {}{}winner per size: it changes only where the 95% CIs separate "
                              "by > {:g}% (--min-effect)",
                              answer.shared, answer.shared.empty() ? "" : ", ",
                              100 * o.min_effect));
  lines.insert(lines.end(), answer.lines.begin(), answer.lines.end());
  std::set<std::string> notes;
  for (const models::Recommendation& r : recs)
    if (r.predicted) notes.insert(fmt::format("# predicted: {}", r.model));
  for (const std::string& n : notes) lines.push_back(n);
  if (!outputs.empty()) {
    // selection.json only from transport mpi: the tree MPICH reads.
    // Two per setting: MPICH's and collbench's own.
    const std::size_t selections = (outputs.size() - 2) / 2;
    // Within the answer's 100 columns: docs/recommend.md names the files.
    lines.push_back(fmt::format("# wrote recommendations.csv, winners.csv{} in {}",
                                selections == 0 ? " (no transport-mpi rows: no selection)"
                                : selections == 1
                                    ? ", selection.json, collbench-selection.json"
                                    : fmt::format(" and {} settings' selection files", selections),
                                o.out));
  }
  if (!outputs.empty()) models::write_files_atomically(o.out, outputs);
  for (const std::string& l : lines) fmt::print("{}\n", l);
}

}  // namespace

Command add_recommend_command(CLI::App& app) {
  auto o = std::make_shared<RecommendOptions>();
  CLI::App* cmd = app.add_subcommand(
      "recommend",
      "Which algorithm to use at which message size, from measured results: one line per "
      "(transport, collective, datatype, ranks); --out writes recommendations.csv, winners.csv, "
      "selection.json and collbench-selection.json");
  cmd->add_option("results", o->results,
                  "results CSVs of `collbench run --csv`, or study directories (their sweep*.csv, "
                  "else their subfolders')")
      ->required();
  cmd->add_option("--calibration", o->calibrations,
                  "calibration (or fit.csv) of a measured transport: also predict the ranks not "
                  "measured (--predict-ranks), naming the model and its validated error");
  cmd->add_option("--predict-ranks", o->predict_ranks,
                  "rank counts to predict with --calibration (default: twice the largest "
                  "measured)")
      ->delimiter(',');
  cmd->add_option("--out", o->out,
                  "write recommendations.csv, winners.csv, selection.json (MPICH) and "
                  "collbench-selection.json (COLLBENCH_SELECTION) into this directory");
  cmd->add_option("--min-effect", o->min_effect,
                  "smallest relative margin that makes a winner (0.05 = 5%); smaller "
                  "differences are ties even when the CIs separate")
      ->capture_default_str();
  cmd->add_option("--mpich-default", o->mpich_default,
                  "MPICH default selection tree that selection.json starts from (default: the one "
                  "in libmpich)");
  return {cmd, [o] {
            recommend(*o);
            return 0;
          }};
}

}  // namespace cb
