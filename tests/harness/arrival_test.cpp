// Arrival patterns (transports/contract/arrival.hpp): what --arrival accepts, what
// it refuses with one line, the delays it gives each rank and iteration, and
// the times an iteration's arrivals and completions make.
#include "transports/contract/arrival.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/types.hpp"

namespace {

using cb::ArrivalPattern;
namespace fs = std::filesystem;

// The UsageError text of parsing `text` (and checking it against p ranks),
// "" when accepted.
std::string refusal(const std::string& text, int p = 4) {
  try {
    ArrivalPattern::parse(text).check_ranks(p);
  } catch (const cb::UsageError& e) {
    return e.what();
  }
  return "";
}

fs::path write_trace(const std::string& name, const std::string& body) {
  const fs::path f = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".csv");
  std::ofstream(f) << body;
  return f;
}

TEST(Arrival, DurationsTakeAUnit) {
  EXPECT_DOUBLE_EQ(cb::parse_duration("250ns", "x"), 250e-9);
  EXPECT_DOUBLE_EQ(cb::parse_duration("1.5us", "x"), 1.5e-6);
  EXPECT_DOUBLE_EQ(cb::parse_duration("2ms", "x"), 2e-3);
  EXPECT_DOUBLE_EQ(cb::parse_duration("1s", "x"), 1.0);
  EXPECT_DOUBLE_EQ(cb::parse_duration("0", "x"), 0.0);
  for (const char* bad : {"-1ms", "1", "1min", "ms", "", "1 ms", "nanus"})
    EXPECT_THROW(cb::parse_duration(bad, "x"), cb::UsageError) << bad;
}

TEST(Arrival, NoneDelaysNobody) {
  const ArrivalPattern p = ArrivalPattern::parse("none");
  EXPECT_FALSE(p.active());
  EXPECT_EQ(p.delays(3, 7), (std::vector<double>{0, 0, 0}));
}

TEST(Arrival, OneLateDefaultsToTheLastRank) {
  const ArrivalPattern last = ArrivalPattern::parse("one-late:1ms");
  EXPECT_TRUE(last.active());
  EXPECT_FALSE(last.varies());
  EXPECT_EQ(last.delays(4, 0), (std::vector<double>{0, 0, 0, 1e-3}));
  const ArrivalPattern first = ArrivalPattern::parse("one-late:500us:0");
  EXPECT_EQ(first.delays(2, 9), (std::vector<double>{500e-6, 0}));
  EXPECT_DOUBLE_EQ(first.max_delay_s(), 500e-6);
}

TEST(Arrival, ListGivesOneDelayPerRank) {
  const ArrivalPattern p = ArrivalPattern::parse("list:0,10us,2ms");
  const std::vector<double> d = p.delays(3, 5);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0], 0.0);
  EXPECT_DOUBLE_EQ(d[1], 10e-6);
  EXPECT_DOUBLE_EQ(d[2], 2e-3);
  EXPECT_EQ(refusal("list:0,10us,2ms", 3), "");
}

TEST(Arrival, UniformIsSeededReproducibleAndBounded) {
  const ArrivalPattern a = ArrivalPattern::parse("uniform:500us", 7);
  const ArrivalPattern b = ArrivalPattern::parse("uniform:500us", 7);
  const ArrivalPattern c = ArrivalPattern::parse("uniform:500us", 8);
  EXPECT_TRUE(a.varies());
  EXPECT_EQ(a.delays(8, 3), b.delays(8, 3));
  EXPECT_NE(a.delays(8, 3), c.delays(8, 3));
  EXPECT_NE(a.delays(8, 3), a.delays(8, 4));
  double lo = 1, hi = 0;
  for (std::uint64_t i = 0; i < 200; ++i)
    for (double d : a.delays(8, i)) {
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 500e-6);
  EXPECT_GT(hi, 400e-6);  // 1600 draws spread over the interval
  EXPECT_LT(lo, 100e-6);
}

TEST(Arrival, TraceRowsRepeat) {
  const fs::path f = write_trace("trace-ok", "iteration,rank,delay_us\n0,0,0\n0,1,250\n1,1,0\n1,0,1000\n");
  const ArrivalPattern p = ArrivalPattern::parse("trace:" + f.string());
  EXPECT_TRUE(p.varies());
  EXPECT_EQ(refusal("trace:" + f.string(), 2), "");
  EXPECT_EQ(p.delays(2, 0)[0], 0.0);
  EXPECT_DOUBLE_EQ(p.delays(2, 0)[1], 250e-6);
  EXPECT_DOUBLE_EQ(p.delays(2, 1)[0], 1000e-6);
  EXPECT_EQ(p.delays(2, 1)[1], 0.0);
  EXPECT_EQ(p.delays(2, 2), p.delays(2, 0));
  fs::remove(f);
}

TEST(Arrival, BadPatternsAreRefusedNamingTheProblem) {
  EXPECT_NE(refusal("one-late:-1ms").find("negative"), std::string::npos);
  EXPECT_NE(refusal("one-late:1min").find("unknown unit 'min'"), std::string::npos);
  EXPECT_NE(refusal("uniform:5").find("no unit"), std::string::npos);
  EXPECT_NE(refusal("one-late:1ms:4", 4).find("late rank 4"), std::string::npos);
  EXPECT_NE(refusal("one-late:1ms:x").find("rank 'x'"), std::string::npos);
  EXPECT_NE(refusal("list:0,1ms", 3).find("2 delays for 3 ranks"), std::string::npos);
  EXPECT_NE(refusal("late:1ms").find("unknown pattern 'late'"), std::string::npos);
  EXPECT_NE(refusal("uniform").find("missing its value"), std::string::npos);
  EXPECT_NE(refusal("trace:/nonexistent/t.csv").find("cannot read"), std::string::npos);
  // Read with bounds: a device or a FIFO is refused at once, not read until
  // memory runs out or a writer appears.
  EXPECT_NE(refusal("trace:/dev/zero").find("only regular files"), std::string::npos);
  const fs::path fifo = fs::temp_directory_path() / ("collbench-trace-fifo-" + std::to_string(::getpid()));
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(refusal("trace:" + fifo.string()).find("only regular files"), std::string::npos);
  fs::remove(fifo);
  const fs::path cut = write_trace("trace-cut", "iteration,rank,delay_us\n0,0,1");
  EXPECT_NE(refusal("trace:" + cut.string(), 1).find("cut short"), std::string::npos);
  const fs::path missing_rank =
      write_trace("trace-rank", "iteration,rank,delay_us\n0,0,0\n0,1,5\n1,0,3\n");
  EXPECT_NE(refusal("trace:" + missing_rank.string(), 2).find("iteration 1 of the trace has ranks 0..0"),
            std::string::npos);
  const fs::path gap = write_trace("trace-gap", "iteration,rank,delay_us\n0,0,0\n2,0,5\n");
  EXPECT_NE(refusal("trace:" + gap.string(), 1).find("no iteration 1"), std::string::npos);
  const fs::path hole = write_trace("trace-hole", "iteration,rank,delay_us\n0,0,0\n0,2,5\n");
  EXPECT_NE(refusal("trace:" + hole.string(), 3).find("has no rank 1"), std::string::npos);
  const fs::path neg = write_trace("trace-neg", "iteration,rank,delay_us\n0,0,-5\n");
  EXPECT_NE(refusal("trace:" + neg.string(), 1).find("line 2"), std::string::npos);
  const fs::path head = write_trace("trace-head", "it,rank,delay\n0,0,5\n");
  EXPECT_NE(refusal("trace:" + head.string(), 1).find("header"), std::string::npos);
  for (const fs::path& f : {missing_rank, gap, hole, neg, head}) fs::remove(f);
  // Every refusal is one line.
  for (const char* bad : {"one-late:-1ms", "list:0,1ms", "x", "uniform:1h"})
    EXPECT_EQ(refusal(bad, 3).find('\n'), std::string::npos) << bad;
}

TEST(Arrival, TimesFromArrivalsAndCompletions) {
  // Rank 2 arrives 1 ms late; the collective ends 0.2 ms after it.
  const std::vector<double> arrival{0, 0, 1e-3}, finish{1.1e-3, 1.2e-3, 1.2e-3};
  const cb::ArrivalTimes t = cb::arrival_times(arrival, finish);
  EXPECT_DOUBLE_EQ(t.step_s, 1.2e-3);
  EXPECT_NEAR(t.after_last_s, 0.2e-3, 1e-15);
  ASSERT_TRUE(t.early_in_s);
  EXPECT_NEAR(*t.early_in_s, 1.15e-3, 1e-15);
  // Everyone at once: no early rank; step and after-last coincide.
  const cb::ArrivalTimes same = cb::arrival_times(std::vector<double>{2e-3, 2e-3},
                                                  std::vector<double>{3e-3, 2.5e-3});
  EXPECT_FALSE(same.early_in_s);
  EXPECT_DOUBLE_EQ(same.step_s, same.after_last_s);
}

}  // namespace
