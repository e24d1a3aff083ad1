// scripts/plot.py must regenerate every plot from CSVs alone and reject a
// missing or malformed input with one clear line.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

}  // namespace
