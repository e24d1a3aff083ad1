// scripts/plot.py must regenerate every plot from CSVs alone and reject a
// missing or malformed input with one clear line; scripts/report.py writes the
// headline figures (best schedule vs MPI with its spread over repeated runs);
// both answer --help, and under a Python without matplotlib plot.py says so in
// one line.
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

TEST_F(PlotTest, WritesEveryPlotAsValidPng) {
  const Result r = plot();
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* name : {"latency-mpi.png", "busbw-mpi.png", "crossover-allreduce.png",
                           "model-error.png", "rank-comparison.png", "crossovers.png"}) {
    const fs::path png = dir_ / "plots" / name;
    ASSERT_TRUE(fs::exists(png)) << png;
    EXPECT_GT(fs::file_size(png), 1000u) << png;
    EXPECT_TRUE(is_png(png)) << png;
  }
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
  EXPECT_EQ(WEXITSTATUS(bare.status), 1);
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
  EXPECT_EQ(WEXITSTATUS(bad.status), 1);
  EXPECT_NE(bad.output.find("neither a results CSV"), std::string::npos) << bad.output;
}

TEST_F(PlotTest, ReportGivesBestScheduleVsMpiWithItsSpreadOverRuns) {
  // Two repeats of the sweep (copies here): three runs' ratios, reported as
  // their median and range instead of one run's figure.
  for (int i = 1; i <= 2; ++i) {
    std::ifstream in(sweep());
    std::string line, text;
    std::getline(in, line);
    text = line + "\n";
    while (std::getline(in, line)) text += line + "\n";
    std::ofstream(dir_ / ("repeat-mpi-" + std::to_string(i) + ".csv")) << text;
  }
  const Result r = script("report.py", dir_.string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(dir_ / "report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("allreduce, 2 ranks over mpi: best schedule **"), std::string::npos) << md;
  EXPECT_NE(md.find("(range of 3 runs: "), std::string::npos) << md;
  EXPECT_EQ(md.find("issue #"), std::string::npos);
}

}  // namespace
