// The progress ETA (harness/report/eta.hpp, sweep/case_work.hpp) on sweeps
// whose configurations differ 100x and more in cost. Deterministic: the clock
// is injected and the "true" durations are fixed numbers, never timed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <regex>
#include <string>
#include <vector>

#include "harness/report/eta.hpp"
#include "harness/report/reporter.hpp"
#include "transports/contract/row.hpp"
#include "harness/sweep/case_work.hpp"
#include "transports/sim/fast_path.hpp"

namespace cb {
namespace {

// Ratio max(a, b) / min(a, b): how far off an estimate is, either way.
double off_by(double estimate, double truth) {
  return std::max(estimate, truth) / std::max(1e-12, std::min(estimate, truth));
}

// The ETA at the halfway point (half the configurations done) when item i
// truly takes truth[i] seconds and was predicted to cost work[i].
double eta_at_half(const std::vector<double>& work, const std::vector<double>& truth) {
  WorkEta eta(work);
  double elapsed = 0;
  for (std::size_t i = 0; i < truth.size() / 2; ++i) {
    elapsed += truth[i];
    eta.finish_next();
  }
  return eta.eta_s(elapsed);
}

double left_at_half(const std::vector<double>& truth) {
  return std::accumulate(truth.begin() + static_cast<std::ptrdiff_t>(truth.size() / 2),
                         truth.end(), 0.0);
}

// A measured sweep as `collbench run` orders it: sizes ascending 8 B .. 1 GiB
// (x4), so the second half holds nearly all the time.
std::vector<Case> size_sweep() {
  std::vector<Case> cases;
  for (std::size_t bytes = 8; bytes <= (std::size_t{1} << 30); bytes *= 4) {
    Case c;
    c.transport = "mpi";
    c.algorithm = "ring";
    c.ranks = 4;
    c.count = bytes / 4;
    cases.push_back(c);
  }
  return cases;
}

TEST(Eta, HalfwayThroughASweepWhoseCasesDiffer100xItIsWithinTwiceTheTruth) {
  SamplingPlan sampling;
  sampling.iterations = 20;  // -n 20: time grows with the size
  const std::vector<Case> cases = size_sweep();
  std::vector<double> work, truth;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    work.push_back(predicted_measured_case_s(cases[i], sampling));
    // The real machine differs from the generic model by a factor 3 (slower
    // network) and a deterministic +-30% wobble per case.
    truth.push_back(3.0 * work.back() * (1.0 + 0.3 * std::sin(static_cast<double>(i) * 1.7)));
  }
  ASSERT_GT(*std::max_element(truth.begin(), truth.end()),
            100 * *std::min_element(truth.begin(), truth.end()));
  const double eta = eta_at_half(work, truth), left = left_at_half(truth);
  EXPECT_LT(off_by(eta, left), 2.0) << "ETA " << eta << " s, truth " << left << " s";
  // Counting configurations, as before, is off by far more: the test can fail.
  const std::vector<double> flat(cases.size(), 1.0);
  EXPECT_GT(off_by(eta_at_half(flat, truth), left), 10.0);
}

TEST(Eta, SimulatorSweepWeightedByEventCounts) {
  // Rank counts 16 .. 16384 of the ring (events ~ 2 p^2): a 1e5x spread.
  // Weights as `run --transport sim` predicts them; the truth runs at 13 M
  // events/s (not the predicted 10 M) with a larger start-up cost per case.
  const cb::AlgorithmEntry& ring = find_algorithm(Collective::allreduce, "ring");
  std::vector<double> work, truth;
  for (int p = 16; p <= 16384; p *= 2) {
    CollParams params;
    params.p = p;
    params.count = 1 << 20;
    sim::NetworkParams net;
    work.push_back(sim::predicted_wall_s(ring, params, net, false));
    truth.push_back(5e-4 + 2.0 * p * (p - 1) / 1.3e7);
  }
  const double eta = eta_at_half(work, truth), left = left_at_half(truth);
  EXPECT_LT(off_by(eta, left), 2.0) << "ETA " << eta << " s, truth " << left << " s";
}

TEST(Eta, ProgressReporterPrintsTheWeightedEtaAndPlainLinesOffATerminal) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* out = open_memstream(&buf, &len);
  ASSERT_NE(out, nullptr);
  double now = 100;  // injected clock, seconds
  auto reporter = make_progress_reporter(out, false, [&] { return now; });
  RunInfo info;
  info.total_cases = 4;
  info.work = {1, 1, 100, 100};  // two cheap cases, then two 100x dearer
  reporter->begin(info);
  Row r;
  r.c.transport = "mpi";
  r.c.algorithm = "ring";
  r.c.ranks = 2;
  r.c.count = 1;
  now += 1;
  reporter->row(r);
  now += 1;
  reporter->row(r);  // halfway: 2 s elapsed for 2 of 202 work units
  reporter->finish(true);
  std::fclose(out);
  const std::string text(buf, len);
  std::free(buf);
  EXPECT_NE(text.find("[2/4]"), std::string::npos) << text;
  EXPECT_NE(text.find("ETA 3:20\n"), std::string::npos) << text;  // 2 s * 200 / 2 = 200 s
  EXPECT_EQ(text.find('\r'), std::string::npos) << "no terminal control off a terminal";
}

TEST(Eta, TerminalGetsOneLineRewrittenInPlace) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* out = open_memstream(&buf, &len);
  {
    ProgressLine line(out, true);
    line.update("a");
    line.update("b");
  }
  std::fclose(out);
  const std::string text(buf, len);
  std::free(buf);
  EXPECT_EQ(text, "\r\033[Ka\r\r\033[Kb\r\r\033[K");
}

TEST(Eta, ClockTextAndEdges) {
  EXPECT_EQ(clock_text(0), "0:00");
  EXPECT_EQ(clock_text(200), "3:20");
  EXPECT_EQ(clock_text(3725), "1:02:05");
  WorkEta none({});
  EXPECT_EQ(none.eta_s(5), 0);
  WorkEta two({1, 3});
  EXPECT_EQ(two.eta_s(5), 0) << "no pace before the first item";
  two.finish_next();
  EXPECT_DOUBLE_EQ(two.eta_s(2), 6);
  EXPECT_DOUBLE_EQ(two.fraction(), 0.25);
  two.finish_next();
  EXPECT_EQ(two.eta_s(8), 0);
}

}  // namespace
}  // namespace cb
