// scripts/plot.py must regenerate every plot from CSVs alone, each readable
// (tests/scripts/check_plots.py: at most 2400 px wide, >= 3 labelled ticks per
// axis, no overlapping text), and reject a missing or malformed input with one
// clear line and exit status 2; scripts/report.py opens with the answer
// (recommendation, winners, α-β, library) and says so when
// recommendations.csv is absent; both answer --help, and under a Python
// without matplotlib plot.py says so in one line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Result {
  int status;
  std::string output;
};

Result run(const std::string& cmd) {
  Result r{-1, {}};
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe)) r.output += buf.data();
  r.status = pclose(pipe);
  return r;
}

class PlotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("collbench-plot-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const Result fixture = run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR +
                               "/tests/scripts/make_plot_fixture.py " + dir_.string());
    ASSERT_EQ(fixture.status, 0) << fixture.output;
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result plot() {
    return run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR + "/scripts/plot.py " + dir_.string());
  }
  Result script(const std::string& name, const std::string& args) {
    return run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR + "/scripts/" + name + " " + args);
  }
  std::string sweep() const { return (dir_ / "sweep-mpi.csv").string(); }

  fs::path dir_;
};

bool is_png(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::array<unsigned char, 8> sig{};
  in.read(reinterpret_cast<char*>(sig.data()), sig.size());
  constexpr std::array<unsigned char, 8> kPng{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  return in.gcount() == 8 && sig == kPng;
}

constexpr const char* kPlots[] = {"latency-mpi.png",       "busbw-mpi.png",
                                  "winners-mpi.png",       "crossover-allreduce.png",
                                  "crossover-alltoall.png", "model-error.png",
                                  "rank-comparison.png",   "crossovers.png"};

// The plot test proper: every plot is rendered from the fixture as a valid PNG,
// at most 2400 px wide, with >= 3 labelled ticks on every axis and no two
// texts overlapping.
TEST_F(PlotTest, WritesEveryPlotReadable) {
  std::string expect;
  for (const char* name : kPlots) expect += std::string(" ") + name;
  const Result r = run(std::string(CB_PYTHON) + " " + CB_SOURCE_DIR +
                       "/tests/scripts/check_plots.py " + dir_.string() + " " +
                       (dir_ / "plots").string() + " --expect" + expect);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(", 0 problem(s)"), std::string::npos) << r.output;
  for (const char* name : kPlots) {
    const fs::path png = dir_ / "plots" / name;
    ASSERT_TRUE(fs::exists(png)) << png;
    EXPECT_GT(fs::file_size(png), 1000u) << png;
    EXPECT_TRUE(is_png(png)) << png;
  }
}

// A testbed run's winners.csv holds every setting (its `setting` column): one
// winners map per setting, never two settings' cells drawn over each other.
TEST_F(PlotTest, WinnersMapPerSetting) {
  const fs::path d = dir_ / "settings";
  fs::create_directories(d);
  std::ifstream sweep_in(sweep());
  std::string line, kept;
  std::getline(sweep_in, line);
  kept = line + "\n";
  while (std::getline(sweep_in, line))
    if (line.rfind("mpi,allreduce,", 0) == 0 && line.find(",out,2,") != std::string::npos)
      kept += line + "\n";
  std::ofstream(d / "sweep-mpi.csv") << kept;
  std::ifstream winners_in(dir_ / "winners.csv");
  std::string text;
  std::getline(winners_in, line);
  text = line + "\n";  // setting is the last column
  for (int n = 0; std::getline(winners_in, line); ++n)
    text += line + (n % 2 ? "2ms-200Mbit" : "500us/100Mbit") + "\n";
  std::ofstream(d / "winners.csv") << text;
  const Result r = script("plot.py", d.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(is_png(d / "plots" / "winners-2ms-200Mbit-mpi.png")) << r.output;
  // A setting is a value, not a path: '/' becomes '_'.
  EXPECT_TRUE(is_png(d / "plots" / "winners-500us_100Mbit-mpi.png")) << r.output;
  EXPECT_FALSE(fs::exists(d / "plots" / "winners-mpi.png"));
}

TEST_F(PlotTest, MissingSweepIsOneClearError) {
  fs::remove(dir_ / "sweep-mpi.csv");
  const Result r = plot();
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("no sweep-*.csv"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "plots" / "latency-mpi.png"));
}

TEST_F(PlotTest, MissingColumnIsNamed) {
  std::ofstream(dir_ / "fit" / "predictions.csv") << "transport,collective\nmpi,allreduce\n";
  const Result r = plot();
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("predictions.csv: malformed, missing column(s) algorithm"),
            std::string::npos)
      << r.output;
}

TEST_F(PlotTest, NonNumericCellIsNamed) {
  {
    std::ifstream in(dir_ / "map-allreduce.csv");
    std::string header;
    std::getline(in, header);
    std::ofstream(dir_ / "map-allreduce.csv") << header << "\nallreduce,4,64,ring,1e-6,ring,lots\n";
  }
  const Result r = plot();
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("column margin holds 'lots', not a number"), std::string::npos)
      << r.output;
  // Found before any PNG is drawn: nothing half-written.
  EXPECT_FALSE(fs::exists(dir_ / "plots" / "latency-mpi.png"));
}

TEST_F(PlotTest, HelpPrintsUsageAndNoMatplotlibIsOneLine) {
  for (const char* name : {"plot.py", "report.py"}) {
    const Result r = script(name, "--help");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output.rfind("usage: " + std::string(name), 0), 0u) << r.output;
  }
  // -S: no site-packages, so no matplotlib (as under a bare pyenv python3).
  const Result bare = run(std::string(CB_PYTHON) + " -S " + CB_SOURCE_DIR + "/scripts/plot.py " +
                          dir_.string());
  EXPECT_EQ(WEXITSTATUS(bare.status), 2);
  EXPECT_EQ(bare.output, "plot.py: needs matplotlib, which this python lacks: run it with "
                         "/usr/bin/python3 (apt-get install python3-matplotlib)\n");
  // The report needs no matplotlib at all.
  const Result report = run(std::string(CB_PYTHON) + " -S " + CB_SOURCE_DIR +
                            "/scripts/report.py " + dir_.string());
  EXPECT_EQ(report.status, 0) << report.output;
}

TEST_F(PlotTest, OneResultsCsvGetsItsOwnPlotsAndNoSingleRankComparison) {
  // Keep only the 2-rank rows: one rank count, so no rank-comparison plot.
  std::ifstream in(sweep());
  std::string line, kept;
  std::getline(in, line);
  kept = line + "\n";
  while (std::getline(in, line))
    if (line.find(",out,2,") != std::string::npos) kept += line + "\n";
  const fs::path one = dir_ / "run" / "r.csv";
  fs::create_directories(one.parent_path());
  std::ofstream(one) << kept;
  const Result r = script("plot.py", one.string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* name : {"latency-mpi.png", "busbw-mpi.png"})
    EXPECT_TRUE(is_png(dir_ / "run" / "plots" / name)) << name;
  EXPECT_FALSE(fs::exists(dir_ / "run" / "plots" / "rank-comparison.png"));
  EXPECT_FALSE(fs::exists(dir_ / "run" / "plots" / "model-error.png"));
  // A map CSV alone draws its crossover map.
  const Result m = script("plot.py", (dir_ / "map-allreduce.csv").string() + " --out " +
                                         (dir_ / "m").string());
  ASSERT_EQ(m.status, 0) << m.output;
  EXPECT_TRUE(is_png(dir_ / "m" / "crossover-allreduce.png"));
  const Result bad = script("plot.py", (dir_ / "calibration.csv").string());
  EXPECT_EQ(WEXITSTATUS(bad.status), 2);
  EXPECT_NE(bad.output.find("neither a results CSV"), std::string::npos) << bad.output;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST_F(PlotTest, ReportOpensWithTheAnswerThenTheEvidence) {
  // The report links the PNGs it finds in plots/ (WritesEveryPlotReadable draws them).
  fs::create_directories(dir_ / "plots");
  std::ofstream(dir_ / "plots" / "winners-mpi.png") << "png";
  const Result r = script("report.py", dir_.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string md = read_file(dir_ / "report.md");
  // In this order: recommendation, winners, α-β, library, then the appendix.
  std::size_t at = 0;
  for (const char* heading :
       {"## Which algorithm to use", "| mpi | allreduce | fp32 | 4 | 16 B – 16 KiB | **rhd** |",
        "## Winners per rank count and size", "![winners-mpi](plots/winners-mpi.png)",
        "## How well α-β predicts it", "## Best schedule vs the library's own",
        "# Appendix: the evidence", "## Peak bus bandwidth"}) {
    const std::size_t found = md.find(heading, at);
    ASSERT_NE(found, std::string::npos) << heading << " (after offset " << at << ")\n" << md;
    at = found;
  }
  // The library's ratio only where it is not tied with the winner.
  EXPECT_NE(md.find("| rhd | **1.80×** |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ring | not significant (mpi tied with the winner) |"), std::string::npos)
      << md;
  // No in-cache busbw divided by an out-of-cache memcpy.
  EXPECT_EQ(md.find("busbw / memcpy"), std::string::npos) << md;
  EXPECT_EQ(md.find("issue #"), std::string::npos);
}

TEST_F(PlotTest, ReportSaysPlainlyWhenTheRecommendationIsAbsent) {
  fs::remove(dir_ / "recommendations.csv");
  fs::remove(dir_ / "winners.csv");
  const Result r = script("report.py", dir_.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string md = read_file(dir_ / "report.md");
  EXPECT_NE(md.find("**No recommendation here:** `recommendations.csv` is absent"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**No measured winners map:** `winners.csv` is absent"), std::string::npos)
      << md;
  EXPECT_NE(md.find("`recommendations.csv` is absent: no comparison with the library here."),
            std::string::npos)
      << md;
}

}  // namespace
