// `collbench compare BASE.csv NEW.csv`: configurations matched by their key
// columns, verdicts from the medians and their CIs, exit 1 only when one is
// slower beyond its CI and the threshold; bad input is one line and exit 2.
// `collbench compare-rounds`: the per-size ratio of two variants timed in
// interleaved rounds, its spread and verdict, and its refusals.
// The binary comes from $COLLBENCH (meson sets it).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "algorithms/types.hpp"
#include "harness/report/compare.hpp"
#include "harness/report/paired_rounds.hpp"
#include "tests/common/process.hpp"
#include "tests/common/text_files.hpp"

namespace cb {
namespace {

namespace fs = std::filesystem;

TimedConfig timed(double median, double lo, double hi) {
  TimedConfig t;
  t.median_us = median;
  t.ci_lo_us = lo;
  t.ci_hi_us = hi;
  return t;
}

TEST(Compare, VerdictNeedsTheThresholdAndSeparateIntervals) {
  const TimedConfig base = timed(10, 9.5, 10.5);
  EXPECT_EQ(classify(base, timed(10.2, 9.8, 10.6), 0.05), Verdict::same);
  EXPECT_EQ(classify(base, timed(12, 11.5, 12.5), 0.05), Verdict::slower);
  EXPECT_EQ(classify(base, timed(8, 7.5, 8.5), 0.05), Verdict::faster);
  // 20% slower, but the new CI reaches into the old one: noise, not a verdict.
  EXPECT_EQ(classify(base, timed(12, 10, 14), 0.05), Verdict::noisy);
  // Clearly apart, but below a 25% threshold.
  EXPECT_EQ(classify(base, timed(12, 11.5, 12.5), 0.25), Verdict::same);
}

TEST(Compare, ThresholdAcceptsPercentOrFraction) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("0.1"), 0.1);
  EXPECT_DOUBLE_EQ(parse_threshold("12.5 %"), 0.125);
  EXPECT_THROW(parse_threshold("five"), UsageError);
  EXPECT_THROW(parse_threshold("-3%"), UsageError);
}

using cb::test::Result;
using cb::test::slurp;

class CompareCli : public cb::test::CollbenchCliTest {
 protected:
  CompareCli() : CollbenchCliTest("collbench-compare") {}

  // A results CSV with the columns compare reads; each row: algorithm, bytes,
  // median, ci_lo, ci_hi.
  fs::path write(const std::string& name, const std::string& rows) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << "transport,collective,algorithm,datatype,op,placement,ranks,bytes,"
                        "time_median_us,ci_lo_us,ci_hi_us,oversubscribed\n"
                     << rows;
    return p;
  }
  static std::string row(const std::string& algo, int bytes, double med, double lo, double hi) {
    std::ostringstream s;
    s << "mpi,allreduce," << algo << ",fp32,sum,out,2," << bytes << "," << med << "," << lo << ","
      << hi << ",0\n";
    return s.str();
  }

  Result run(const std::string& args) {
    return cb::test::run_shell(bin_ + " compare " + args, dir_);
  }
};

TEST_F(CompareCli, RegressionBeyondCiAndThresholdFailsTheCheck) {
  const fs::path base = write("base.csv", row("ring", 8, 10, 9.5, 10.5) +
                                              row("ring", 64, 20, 19, 21) +
                                              row("rhd", 8, 10, 9.5, 10.5) +
                                              row("rhd", 64, 20, 19, 21) + row("mpi", 8, 5, 4, 6));
  const fs::path next = write("new.csv", row("rhd", 64, 30, 29, 31) +    // slower
                                             row("ring", 8, 8, 7.8, 8.2) +  // faster
                                             row("ring", 64, 20.3, 19, 22) +  // same
                                             row("rhd", 8, 13, 9, 17) +     // noisy
                                             row("tree", 8, 1, 1, 1));      // only in NEW
  const Result r = run(base.string() + " " + next.string());
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("mpi/allreduce/rhd/fp32/sum/out/2/64"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.500  SLOWER"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0.800  faster"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# 4 configurations: 1 faster, 1 SLOWER, 1 same, 1 noisy"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 only in " + base.string() + ", 1 only in " + next.string()),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("REGRESSION: 1 configuration(s) slower"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("too noisy to tell"), std::string::npos) << r.err;

  // A 60% threshold forgives the 50% slowdown; --changed hides `same` rows.
  const Result lenient = run(base.string() + " " + next.string() + " --threshold 60% --changed");
  EXPECT_EQ(lenient.status, 0) << lenient.out << lenient.err;
  EXPECT_EQ(lenient.out.find("ring/fp32/sum/out/2/64"), std::string::npos) << lenient.out;
}

TEST_F(CompareCli, IdenticalRunsPass) {
  const fs::path base = write("base.csv", row("ring", 8, 10, 9.5, 10.5));
  const Result r = run(base.string() + " " + base.string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1 same"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("geometric mean of new/base time: 1.000"), std::string::npos) << r.out;
}

TEST_F(CompareCli, BadInputIsOneLineAndStatusTwo) {
  const fs::path good = write("good.csv", row("ring", 8, 10, 9.5, 10.5));
  std::ofstream(dir_ / "foreign.csv") << "size,time\n8,1\n";
  const fs::path dup = write("dup.csv", row("ring", 8, 10, 9.5, 10.5) + row("ring", 8, 11, 10, 12));
  const fs::path other = write("other.csv", row("rhd", 8, 10, 9.5, 10.5));
  const std::pair<std::string, std::string> cases[] = {
      {good.string() + " " + (dir_ / "missing.csv").string(), "missing.csv"},
      {good.string() + " " + (dir_ / "foreign.csv").string(), "missing column(s) transport"},
      {good.string() + " " + dup.string(), "already on line 2"},
      {good.string() + " " + other.string(), "share no configuration"},
      {good.string() + " " + good.string() + " --threshold lots", "'lots'"},
      {good.string(), "NEW"},
  };
  for (const auto& [args, needle] : cases) {
    SCOPED_TRACE(args);
    const Result r = run(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
}

// Rounds of two variants: at 8 B new is 2x faster in every round (faster);
// at 1 KiB the ratio straddles 1 (same); at 1 MiB base is faster (slower);
// a size only one variant timed in a round does not count that round.
std::string rounds_csv() {
  std::string s = "round,variant,bytes,time_us\n";
  const double r8[] = {2.0, 2.2, 1.8, 2.1, 1.9, 2.0};
  const double r1k[] = {1.1, 0.9, 1.05, 0.95, 1.0, 1.02};
  for (int r = 0; r < 6; ++r) {
    s += fmt::format("{},mpich,8,{}\n{},collbench,8,100\n", r, 100 * r8[r], r);
    s += fmt::format("{},collbench,1024,100\n{},mpich,1024,{}\n", r, r, 100 * r1k[r]);
    s += fmt::format("{},mpich,1048576,100\n{},collbench,1048576,{}\n", r, r, 120 + r);
  }
  s += "6,mpich,8,1\n";  // no collbench time in round 6
  return s;
}

TEST(PairedRounds, RatioPerSizeWithItsSpreadAndVerdict) {
  const auto rows = paired_ratios(parse_round_times(rounds_csv(), "r.csv"), "mpich", "collbench");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].bytes, 8u);
  EXPECT_EQ(rows[0].rounds, 6u);
  EXPECT_DOUBLE_EQ(rows[0].ratio_median, 2.0);
  EXPECT_DOUBLE_EQ(rows[0].ratio_min, 1.8);
  EXPECT_DOUBLE_EQ(rows[0].ratio_max, 2.2);
  EXPECT_EQ(rows[0].verdict, RatioVerdict::faster);
  EXPECT_DOUBLE_EQ(rows[0].new_median_us, 100);
  EXPECT_EQ(rows[1].verdict, RatioVerdict::same);
  EXPECT_LE(rows[1].ratio_ci_lo, 1);
  EXPECT_GE(rows[1].ratio_ci_hi, 1);
  EXPECT_EQ(rows[2].verdict, RatioVerdict::slower);
  EXPECT_LT(rows[2].ratio_max, 1);
  const std::string csv = paired_ratios_csv(rows);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "bytes,rounds,base_median_us,new_median_us,ratio_median,ratio_min,ratio_max,"
            "ratio_ci_lo,ratio_ci_hi,verdict");
  EXPECT_NE(csv.find("\n8,6,200,100,2,1.8,2.2,"), std::string::npos) << csv;
}

TEST_F(CompareCli, CompareRoundsPrintsAndWritesTheTableOrRefusesInOneLine) {
  const fs::path rounds = dir_ / "rounds.csv";
  std::ofstream(rounds) << rounds_csv();
  const Result ok = cb::test::run_shell(
      bin_ + " compare-rounds " + rounds.string() + " --csv " + (dir_ / "out.csv").string(), dir_);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("faster"), std::string::npos) << ok.out;
  EXPECT_NE(cb::test::slurp(dir_ / "out.csv").find("1048576,6,100,"), std::string::npos);
  const fs::path bad = dir_ / "bad.csv";
  std::ofstream(bad) << "round,variant,bytes,time_us\n0,mpich,8,-3\n";
  const std::pair<std::string, std::string> cases[] = {
      {bad.string(), "time_us '-3' is not a positive time"},
      {rounds.string() + " --new pmpi", "variant 'pmpi' has no timing (the file has: collbench, "
                                        "mpich)"},
      {(dir_ / "none.csv").string(), "none.csv"},
  };
  for (const auto& [args, needle] : cases) {
    SCOPED_TRACE(args);
    const Result r = cb::test::run_shell(bin_ + " compare-rounds " + args, dir_);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace cb
