// `collbench run --arrival` as a user meets it: bad patterns are refused in
// one line with exit 2 and no file; the simulator's rows carry the arrival
// columns; and over MPI (mpiexec -n 2, one host: one CLOCK_MONOTONIC) each
// rank's measured start is its agreed start moved by its delay, within the
// clock synchronization's reported accuracy plus a scheduling allowance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tests/common/process.hpp"
#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;
using cb::test::cells_of;
using cb::test::lines_of;
using cb::test::Result;
using cb::test::slurp;

// Column `name` of every data row of a CSV text.
std::vector<std::string> column(const std::string& csv, const std::string& name) {
  const std::vector<std::string> lines = lines_of(csv);
  std::vector<std::string> out;
  if (lines.empty()) return out;
  const std::vector<std::string> head = cells_of(lines[0]);
  const auto at = std::find(head.begin(), head.end(), name);
  EXPECT_NE(at, head.end()) << name;
  if (at == head.end()) return out;
  for (std::size_t i = 1; i < lines.size(); ++i)
    out.push_back(cells_of(lines[i]).at(static_cast<std::size_t>(at - head.begin())));
  return out;
}

class ArrivalCli : public cb::test::CollbenchCliTest {
 protected:
  ArrivalCli() : CollbenchCliTest("collbench-arrival") {}

  Result run(const std::string& args) { return cb::test::run_shell(bin_ + " " + args, dir_); }

  void expect_refused(const std::string& args, const std::string& needle) {
    SCOPED_TRACE(args);
    const Result r = run(args + " --csv " + (dir_ / "r.csv").string());
    EXPECT_EQ(r.status, 2);
    const auto err = lines_of(r.err);
    ASSERT_EQ(err.size(), 1u) << r.err;
    EXPECT_NE(err[0].find(needle), std::string::npos) << err[0];
    for (const char* f : {"r.csv", "r.csv.partial"}) EXPECT_FALSE(fs::exists(dir_ / f)) << f;
  }
};

TEST_F(ArrivalCli, BadPatternsAreRefusedInOneLine) {
  const std::string sim = "run --transport sim --coll allreduce --ranks 4 -b 1K -e 1K";
  expect_refused(sim + " --arrival one-late:-1ms", "negative");
  expect_refused(sim + " --arrival one-late:1min", "unknown unit 'min'");
  expect_refused(sim + " --arrival one-late:1ms:4", "late rank 4");
  expect_refused(sim + " --arrival list:0,1ms,2ms", "3 delays for 4 ranks");
  expect_refused("run --transport sim --coll allreduce --ranks 2,4 -b 1K -e 1K --arrival list:0,1ms",
                 "2 delays for 4 ranks");
  expect_refused(sim + " --arrival sometimes:1ms", "unknown pattern 'sometimes'");
  const fs::path trace = dir_ / "t.csv";
  std::ofstream(trace) << "iteration,rank,delay_us\n0,0,0\n0,1,10\n0,2,20\n";
  expect_refused(sim + " --arrival trace:" + trace.string(), "ranks 0..2, the run 4 ranks");
  expect_refused("run --transport mpi -b 1K -e 1K --start barrier --arrival one-late:1ms",
                 "--start window");
  expect_refused(sim + " --start back-to-back --arrival one-late:1ms",
                 "cannot be combined with --start back-to-back");
}

// One late rank: the step time is exactly the delay longer than the time
// after the last arrival, and every arrival column is filled.
TEST_F(ArrivalCli, SimulatorRowsCarryTheArrivalColumns) {
  const fs::path csv = dir_ / "sim.csv";
  const Result r = run("run --transport sim --coll allreduce --ranks 4 -b 64K -e 256K -f 4 "
                       "--arrival one-late:1ms --csv " + csv.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(csv);
  const auto algos = column(text, "algorithm");
  ASSERT_GE(algos.size(), 2u * 5u);
  const auto pattern = column(text, "arrival"), step = column(text, "time_median_us"),
             after = column(text, "after_last_median_us"), noskew = column(text, "noskew_median_us"),
             ratio = column(text, "step_ratio"), idle = column(text, "early_idle_us");
  for (std::size_t i = 0; i < algos.size(); ++i) {
    SCOPED_TRACE(algos[i]);
    EXPECT_EQ(pattern[i], "one-late:1ms");
    EXPECT_NEAR(std::stod(step[i]) - std::stod(after[i]), 1000.0, 1e-6 * std::stod(step[i]));
    EXPECT_NEAR(std::stod(ratio[i]), std::stod(step[i]) / std::stod(noskew[i]), 1e-6);
    EXPECT_GE(std::stod(idle[i]), 0.0);
  }
  EXPECT_NE(r.out.find("most tolerant of one-late:1ms"), std::string::npos) << r.out;
}

// Over MPI with 2 ranks on this host (one shared CLOCK_MONOTONIC), per
// sample from --arrival-log: each rank's target start (its agreed start on
// its estimate of rank 0's clock, plus its delay) differs from the other's by
// the requested delay difference within the row's clock_sync_us, the bound
// the midpoint estimate obeys; and where both ranks woke within a scheduling
// allowance of their targets (a loaded machine wakes a sleeper late, which
// the log shows), the measured starts differ by the requested delay within
// clock_sync_us plus that allowance. The delays exceed the allowance, so the
// pattern did move the starts. No assertion depends on how fast anything ran.
TEST_F(ArrivalCli, MpiStartsMoveByTheRequestedDelay) {
  const char* mpiexec = std::getenv("MPIEXEC");
  if (mpiexec == nullptr || *mpiexec == '\0') GTEST_SKIP() << "no mpiexec in this build";
  constexpr double kAllowance_ns = 10e6;
  for (const auto& [pattern, want_ns] :
       {std::pair{std::string("list:0,50ms"), 50e6}, std::pair{std::string("one-late:30ms:0"), -30e6}}) {
    SCOPED_TRACE(pattern);
    fs::remove_all(dir_ / "log.0");
    fs::remove_all(dir_ / "log.1");
    const fs::path csv = dir_ / "mpi.csv";
    const Result r = cb::test::run_shell(
        std::string(mpiexec) + " -n 2 " + bin_ +
            " run --coll allreduce --algo ring -b 64K -e 64K -n 20 -c 0 --mode-probe off "
            "--placement out --arrival " + pattern + " --arrival-log " + (dir_ / "log").string() +
            " --csv " + csv.string(),
        dir_);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string text = slurp(csv);
    const auto sync = column(text, "clock_sync_us");
    ASSERT_EQ(sync.size(), 1u);
    ASSERT_FALSE(sync[0].empty());
    const double sync_ns = std::stod(sync[0]) * 1e3;
    EXPECT_GE(std::stod(column(text, "time_median_us")[0]), std::abs(want_ns) * 1e-3);
    EXPECT_FALSE(column(text, "after_last_median_us")[0].empty());
    EXPECT_FALSE(column(text, "noskew_median_us")[0].empty());
    // (seed, op, sample) -> (delay, target, start, late) per rank.
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::vector<double>>>
        at;
    for (int rank : {0, 1}) {
      const auto lines = lines_of(slurp(dir_ / ("log." + std::to_string(rank))));
      ASSERT_GE(lines.size(), 21u) << rank;
      ASSERT_EQ(lines[0], "seed,op,sample,delay_ns,target_ns,start_ns,late,offset_ns,rtt_ns");
      for (std::size_t i = 1; i < lines.size(); ++i) {
        const auto c = cells_of(lines[i]);
        at[{c[0], c[1], c[2]}].push_back(
            {std::stod(c[3]), std::stod(c[4]), std::stod(c[5]), std::stod(c[6])});
      }
    }
    int targets = 0, starts = 0;
    for (const auto& [key, ranks] : at) {
      ASSERT_EQ(ranks.size(), 2u);
      SCOPED_TRACE("sample " + std::get<2>(key));
      if (ranks[0][3] > 0 || ranks[1][3] > 0) continue;  // a rank was late for its window
      const double requested = ranks[1][0] - ranks[0][0];
      EXPECT_DOUBLE_EQ(requested, want_ns);
      EXPECT_NEAR(ranks[1][1] - ranks[0][1], requested, sync_ns);
      ++targets;
      const bool woke_on_time = ranks[0][2] - ranks[0][1] <= kAllowance_ns &&
                                ranks[1][2] - ranks[1][1] <= kAllowance_ns;
      if (!woke_on_time) continue;
      EXPECT_NEAR(ranks[1][2] - ranks[0][2], requested, sync_ns + kAllowance_ns);
      ++starts;
    }
    EXPECT_GE(targets, 1);
    std::printf("%s: %d of %zu samples on time, %d woke within %.0f ms; clock sync +-%.1f us\n",
                pattern.c_str(), targets, at.size(), starts, kAllowance_ns * 1e-6, sync_ns * 1e-3);
  }
}

}  // namespace
