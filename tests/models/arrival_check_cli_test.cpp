// `collbench arrival-check` as a user runs it, on a hand-made results CSV:
// each row's predicted time after the last arrival is what `predict
// --arrival` gives for it (one pricing), the files are written, and bad
// input (rows without the CI columns, no row under a pattern) is one line,
// exit 2 and no file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;
using cb::test::cells_of;
using cb::test::lines_of;
using cb::test::slurp;

const char* kModel = " --alpha 20us --beta 1e-9 --gamma 1e-10";

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("cb-arrival-check-" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
};

std::string bin() {
  const char* b = std::getenv("COLLBENCH");
  return b ? b : "";
}

int run(const std::string& args, const fs::path& log) {
  const std::string cmd = bin() + " " + args + " >" + log.string() + " 2>&1";
  return WEXITSTATUS(std::system(cmd.c_str()));
}

// Column `name` of every data row of `text`.
std::vector<std::string> column(const std::string& text, const std::string& name) {
  const std::vector<std::string> lines = lines_of(text);
  const std::vector<std::string> head = cells_of(lines.at(0));
  std::size_t k = 0;
  while (k < head.size() && head[k] != name) ++k;
  std::vector<std::string> out;
  for (std::size_t i = 1; i < lines.size(); ++i) out.push_back(cells_of(lines[i]).at(k));
  return out;
}

const char* kHeader =
    "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,time_median_us,"
    "arrival,noskew_median_us,after_last_median_us,after_last_ci_lo_us,after_last_ci_hi_us\n";

TEST(ArrivalCheckCli, PredictsAsPredictDoes) {
  ASSERT_FALSE(bin().empty()) << "COLLBENCH must name the collbench binary";
  Scratch s;
  {
    std::ofstream f(s.dir / "r.csv");
    f << kHeader;
    for (const char* algo : {"ring", "tree", "rhd"})
      f << "mpi,allreduce," << algo
        << ",fp32,sum,out,4,65536,16384,1500,one-late:1ms,600,500,480,520\n";
  }
  ASSERT_EQ(run("arrival-check " + (s.dir / "r.csv").string() + kModel + " --out " +
                    (s.dir / "out").string(),
                s.dir / "log"),
            0)
      << slurp(s.dir / "log");
  const std::string cases = slurp(s.dir / "out" / "arrival-cases.csv");
  for (const char* f : {"arrival-picks.csv", "arrival-crossovers.csv", "arrival-summary.csv"})
    EXPECT_TRUE(fs::exists(s.dir / "out" / f)) << f;
  ASSERT_EQ(run("predict --coll allreduce --ranks 4 -b 65536 -e 65536 --arrival one-late:1ms" +
                    std::string(kModel) + " --csv " + (s.dir / "p.csv").string(),
                s.dir / "plog"),
            0)
      << slurp(s.dir / "plog");
  const std::string predicted = slurp(s.dir / "p.csv");
  std::map<std::string, double> by_algo;
  const auto algos = column(predicted, "algorithm");
  const auto after = column(predicted, "after_last_us");
  for (std::size_t i = 0; i < algos.size(); ++i) by_algo[algos[i]] = std::stod(after[i]);
  const auto checked_algos = column(cases, "algorithm");
  const auto checked = column(cases, "predicted_after_last_us");
  const auto err = column(cases, "rel_err");
  ASSERT_EQ(checked.size(), 3u) << cases;
  for (std::size_t i = 0; i < checked.size(); ++i) {
    const double p = std::stod(checked[i]);
    // predict prints 6 significant digits.
    EXPECT_NEAR(p, by_algo.at(checked_algos[i]), 1e-5 * p) << checked_algos[i];
    EXPECT_NEAR(std::stod(err[i]), (p - 500) / 500, 1e-9) << checked_algos[i];
    EXPECT_GT(p, 0);
  }
  // The measured rows tie (CIs overlap): any pick of the model is right.
  EXPECT_EQ(column(slurp(s.dir / "out" / "arrival-picks.csv"), "right"),
            std::vector<std::string>{"1"});
}

TEST(ArrivalCheckCli, RefusesRowsWithoutTheCiAndFilesWithoutPatterns) {
  ASSERT_FALSE(bin().empty());
  Scratch s;
  {
    std::ofstream f(s.dir / "noci.csv");
    f << kHeader << "mpi,allreduce,ring,fp32,sum,out,4,65536,16384,1500,one-late:1ms,600,500,,\n";
    std::ofstream g(s.dir / "none.csv");
    g << kHeader << "mpi,allreduce,ring,fp32,sum,out,4,65536,16384,1500,,,,,\n";
  }
  for (const char* file : {"noci.csv", "none.csv"}) {
    const fs::path out = s.dir / (std::string("out-") + file);
    EXPECT_EQ(run("arrival-check " + (s.dir / file).string() + kModel + " --out " + out.string(),
                  s.dir / "log"),
              2)
        << file;
    const std::string log = slurp(s.dir / "log");
    EXPECT_EQ(lines_of(log).size(), 1u) << log;
    EXPECT_NE(log.find(file), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(out)) << file;
  }
  EXPECT_NE(slurp(s.dir / "log").find("no schedule row measured under a pattern"),
            std::string::npos);
}

}  // namespace
