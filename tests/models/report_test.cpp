// The outputs of `collbench fit`: the CSVs on a fixture and model-report.md
// rendered from them by scripts/model_report.py (as `collbench fit` runs it),
// and the whole computation (run_fit) end to end on a results CSV generated
// from the registry's closed forms.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/analysis.hpp"
#include "models/calibration.hpp"
#include "models/csv_text.hpp"
#include "models/fit_run.hpp"
#include "models/outputs.hpp"
#include "models/summary_csv.hpp"
#include "models/targets.hpp"
#include "tests/models/textbook.hpp"

namespace cb::models {
namespace {

namespace fs = std::filesystem;

// Every record has as many fields as the header; returns the records.
std::vector<CsvRecord> check_rectangular(const std::string& text, const std::string& name) {
  auto recs = parse_csv(text, name);
  EXPECT_GE(recs.size(), 2u) << name;
  for (const CsvRecord& r : recs)
    EXPECT_EQ(r.fields.size(), recs.front().fields.size()) << name << " line " << r.line;
  return recs;
}

// model-report.md as `collbench fit` writes it: the fit's CSVs in a scratch
// directory, rendered by scripts/model_report.py.
std::string model_report(const Analysis& a) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("cb-model-report-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::pair<const char*, std::string> files[] = {
      {"fit.csv", fit_csv(a)},           {"crossovers.csv", crossovers_csv(a)},
      {"accuracy.csv", accuracy_csv(a)}, {"errors.csv", errors_csv(a)},
      {"summary.csv", summary_csv(a)}};
  for (const auto& [name, text] : files) std::ofstream(dir / name) << text;
  const std::string command = fmt::format("'{}' '{}/scripts/model_report.py' '{}'", CB_PYTHON,
                                          CB_SOURCE_DIR, dir.string());
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::stringstream text;
  text << std::ifstream(dir / "model-report.md").rdbuf();
  fs::remove_all(dir);
  return text.str();
}

ResultsFile fixture() {
  ResultsFile f{"fixture.csv", test::synthetic_rows({2, 4, 8}, 0.03, 5)};
  // A library baseline: per-configuration line only, never in the global fit.
  for (std::uint64_t bytes = 8; bytes <= (1u << 20); bytes *= 4) {
    Measurement m;
    m.line = 9000 + bytes;
    m.transport = "synthetic";
    m.algorithm = "mpi";
    m.scenario = {Collective::allreduce, 4, DataType::fp32, ReduceOp::sum, false};
    m.has_op = true;
    m.bytes = bytes;
    m.count = bytes / 4;
    m.time_s = 3e-6 + bytes * 1.5e-10;
    f.rows.push_back(m);
  }
  return f;
}

TEST(Report, FixtureGivesEveryFileAndSection) {
  const ResultsFile f = fixture();
  AnalysisOptions opt;
  opt.calibrations.push_back({"synthetic", "calib.csv", ModelParams{2.2e-6, 1.1e-10, 2.4e-10}, {}});
  opt.config_resamples = 50;
  opt.global_resamples = 30;
  const Analysis a = analyze(f, opt);

  ASSERT_EQ(a.transports.size(), 1u);
  ASSERT_TRUE(a.transports[0].fit);
  EXPECT_EQ(a.transports[0].excluded.size(), 1u);  // the baseline rows, with the reason

  // The plots' bands and levels come from the fit (models/targets.hpp,
  // report_levels.hpp), not from plot.py.
  const std::string summary = summary_csv(a);
  EXPECT_NE(summary.find(fmt::format("\nerror_band,,{},\n", csv_number(kErrorBand))),
            std::string::npos);
  EXPECT_NE(summary.find("\ncrossover_band,,2,\n"), std::string::npos);
  EXPECT_NE(summary.find("\nshown_level,,,global\nshown_level,,,calibration\n"), std::string::npos)
      << summary;

  const std::string report = model_report(a);
  for (const char* s : {"## Fitted parameters", "## Model error per algorithm",
                        "## Crossovers: predicted vs measured", "## Best algorithm per size",
                        "## Per-configuration lines", "library baseline", "calib.csv",
                        "| global | synthetic | allreduce | tb_ring |",
                        "| calibration | synthetic | allreduce | tb_butterfly |",
                        "synthetic/allreduce/mpi/fp32/sum/out/p=4", "tb_butterfly vs tb_ring"})
    EXPECT_NE(report.find(s), std::string::npos) << "missing: " << s;
  // alpha 2 us, 1/beta 10 GB/s, 1/gamma 4 GB/s within the 3% noise.
  EXPECT_NE(report.find("| global fit, synthetic | 2 ["), std::string::npos) << report;

  const auto fit = check_rectangular(fit_csv(a), "fit.csv");
  EXPECT_EQ(fit.front().fields[0], "scope");
  EXPECT_EQ(fit[1].fields[0], "global");
  EXPECT_EQ(fit[2].fields[0], "calibration");
  const auto pred = check_rectangular(predictions_csv(a), "predictions.csv");
  // Schedule rows are predicted by global, calibration and config; baselines by config.
  std::size_t baseline_rows = 0;
  for (const Measurement& m : f.rows) baseline_rows += m.entry == nullptr;
  const std::size_t schedule_rows = f.rows.size() - baseline_rows;
  EXPECT_EQ(pred.size() - 1, 3 * schedule_rows + baseline_rows);
  const auto cross = check_rectangular(crossovers_csv(a), "crossovers.csv");
  std::size_t pairs = 0, best = 0;
  for (std::size_t i = 1; i < cross.size(); ++i) {
    pairs += cross[i].fields[0] == "pair";
    best += cross[i].fields[0] == "best";
  }
  // allreduce: 3 algorithms -> 3 pairs per rank count and params source.
  EXPECT_EQ(pairs, 3u * 3 * 2);
  EXPECT_GT(best, 0u);
}

TEST(Report, KneesAppearAsSegmentsInFitCsv) {
  ResultsFile f;
  f.file = "knee.csv";
  for (std::uint64_t bytes = 8; bytes <= (16u << 20); bytes *= 2) {
    Measurement m;
    m.line = 2 + f.rows.size();
    m.transport = "mpi";
    m.algorithm = "mpi";
    m.scenario = {Collective::allreduce, 2, DataType::fp32, ReduceOp::sum, false};
    m.has_op = true;
    m.bytes = bytes;
    m.count = bytes / 4;
    m.time_s = bytes < 65536 ? 2e-6 + bytes * 1e-10 : 10e-6 + bytes * 0.8e-10;
    m.oversubscribed = bytes == 8;
    f.rows.push_back(m);
  }
  AnalysisOptions opt;
  opt.config_resamples = 20;
  const Analysis a = analyze(f, opt);
  const std::string text = fit_csv(a);
  EXPECT_NE(text.find(",65536,,\n"), std::string::npos) << text;  // knees_B of the config row
  EXPECT_NE(text.find("segment,mpi,allreduce,mpi,fp32,sum,out,2,"), std::string::npos) << text;
  const std::string report = model_report(a);
  EXPECT_NE(report.find("| 64 KiB |"), std::string::npos);
  EXPECT_NE(report.find("1 row(s) were measured with more ranks than cores"), std::string::npos);
}

TEST(FitCommand, EndToEndOnRegistryClosedFormsRecoversTheParameters) {
  // Exact times from the registry's own closed forms: the global fit must
  // return the generating parameters and every prediction must be exact.
  const ModelParams truth{4e-6, 2e-10, 5e-10};
  std::string csv =
      "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,time_median_us\n";
  std::size_t rows = 0;
  for (const AlgorithmEntry* e : all_algorithms())
    for (int p : {2, 3, 4, 8})
      for (std::uint64_t count = 1; count <= (1u << 20); count *= 4) {
        const Scenario s{e->coll, p, DataType::fp32, ReduceOp::sum, false};
        const double t = predict_seconds(*e, s, count, truth);
        csv += fmt::format("sim,{},{},fp32,{},out,{},{},{},{:.17g}\n", to_string(e->coll), e->name,
                           is_reducing(e->coll) ? "sum" : "", p,
                           bytes_for_count(e->coll, p, DataType::fp32, count), count, t * 1e6);
        ++rows;
      }
  ASSERT_GT(rows, 0u) << "the registry holds no algorithm";
  const fs::path dir = fs::temp_directory_path() / "cb-models-fit-e2e";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "results.csv") << csv;
  // The calibration file format round-trips through load_model_params.
  Calibration cal;
  cal.params = truth;
  cal.transport = "sim";
  cal.pingpong_sizes_B = {8, 16};
  std::ofstream(dir / "calibration.csv") << format_calibration(cal);

  FitRequest req;
  req.results_csv = (dir / "results.csv").string();
  req.calibration_files = {(dir / "calibration.csv").string()};
  req.out_dir = (dir / "out").string();
  const FitRun run = run_fit(req);
  ASSERT_EQ(run.written.size(), 6u);  // fit, predictions, crossovers, accuracy, errors, summary
  for (const std::string& p : run.written) EXPECT_GT(fs::file_size(p), 0u) << p;

  const ModelParams got = load_model_params((dir / "out" / "fit.csv").string());
  EXPECT_NEAR(got.alpha_s / truth.alpha_s, 1, 1e-6);
  EXPECT_NEAR(got.beta_s_per_B / truth.beta_s_per_B, 1, 1e-6);
  EXPECT_NEAR(got.gamma_s_per_B / truth.gamma_s_per_B, 1, 1e-6);
  for (const Prediction& p : run.analysis.predictions)
    if (p.params != kByConfig) {
      EXPECT_LT(std::fabs(p.rel_err), 1e-6) << p.row->algorithm;
    }
  // With exact times, the model's best choice is the measured best.
  for (const BestAtSize& b : run.analysis.best) EXPECT_LT(b.regret, 1e-9);
  fs::remove_all(dir);
}

// model-report.md is rendered after the CSVs are written: a destination it
// could not replace is refused before any of them is.
TEST(FitCommand, AReportDestinationThatIsALinkIsRefusedBeforeAnyFile) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("cb-fit-link-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir / "out");
  std::ofstream(dir / "results.csv")
      << "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,time_median_us\n"
         "sim,allreduce,ring,fp32,sum,out,2,8,2,1.5\nsim,allreduce,ring,fp32,sum,out,2,64,16,2\n"
         "sim,allreduce,ring,fp32,sum,out,2,512,128,3\n";
  fs::create_symlink(dir / "elsewhere.md", dir / "out" / "model-report.md");
  FitRequest req;
  req.results_csv = (dir / "results.csv").string();
  req.out_dir = (dir / "out").string();
  try {
    run_fit(req);
    ADD_FAILURE() << "wrote through a link";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "out" / "fit.csv"));
  EXPECT_FALSE(fs::exists(dir / "elsewhere.md"));
  fs::remove_all(dir);
}

TEST(Report, MarkdownIsEscaped) {
  // A tie set in the per-size table keeps the row's cell count.
  Analysis a;
  BestAtSize b;
  b.group.transport = "mpi";
  b.group.ranks = 2;
  b.params = kByCalibration;
  b.bytes = 1024;
  b.predicted_best = "butterfly|naive";
  b.measured_best = "naive";
  b.predicted_best_measured_s = b.measured_best_s = 1e-6;
  a.best.push_back(b);
  const std::string report = model_report(a);
  const std::size_t at = report.find("| 1 KiB |");
  ASSERT_NE(at, std::string::npos) << report;
  const std::string row = report.substr(report.rfind('\n', at) + 1,
                                        report.find('\n', at) - report.rfind('\n', at) - 1);
  std::size_t cells = 0;
  for (std::size_t i = 0; i < row.size(); ++i) cells += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
  EXPECT_EQ(cells, 7u) << row;  // 6 columns
  EXPECT_NE(row.find("butterfly\\|naive"), std::string::npos) << row;
}

}  // namespace
}  // namespace cb::models
