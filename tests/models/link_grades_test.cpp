// The grades `collbench fit` writes for the reports to show (targets.hpp,
// link_grades.hpp): met_* verdicts in their direction, and the testbed's
// link-limited scope leaving out exactly the CPU-limited rows, the sizes where
// one is, and the crossovers next to one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <utility>

#include "models/analysis.hpp"
#include "models/csv_text.hpp"
#include "models/link_grades.hpp"
#include "models/outputs.hpp"
#include "models/targets.hpp"

namespace cb::models {
namespace {

TEST(Targets, MetCellJudgesInTheTargetsDirection) {
  EXPECT_EQ(met_cell(0.2, 0.2), "1");  // at most, inclusive
  EXPECT_EQ(met_cell(0.2000001, 0.2), "0");
  EXPECT_EQ(met_cell(43.0 / 48, 0.9, true), "0");  // 89.6% of picks, at least 90%
  EXPECT_EQ(met_cell(44.0 / 48, 0.9, true), "1");
  EXPECT_EQ(met_cell(NAN, 0.2), "");  // no value
  EXPECT_EQ(met_cell(0.1, kNoTarget), "");  // no target
}

// One group (mpi all-reduce, p = 4) measured at 1 KiB, 64 KiB and 1 MiB for
// ring and rhd; ring at 1 KiB is CPU-limited.
struct Fixture {
  std::deque<Measurement> rows;
  Analysis a;
  std::vector<LinkRow> links;
  GroupKey group{"mpi", Collective::allreduce, DataType::fp32, "sum", "out", 4};

  const Measurement* row(const std::string& algo, std::uint64_t bytes) {
    for (const Measurement& m : rows)
      if (m.algorithm == algo && m.bytes == bytes) return &m;
    Measurement& m = rows.emplace_back();
    m.transport = "mpi";
    m.algorithm = algo;
    m.scenario.p = 4;
    m.has_op = true;
    m.bytes = bytes;
    m.time_s = 1e-3;
    LinkRow l;
    l.row = &m;
    l.cpu_s = algo == "ring" && bytes == 1024 ? 2.0 : 1.0;
    l.link_s = 1.5;
    links.push_back(l);
    return &m;
  }
  void predict(const std::string& algo, std::uint64_t bytes, double rel_err) {
    a.predictions.push_back({row(algo, bytes), kByCalibration, 1e-3, rel_err, NAN});
  }
  void best(std::uint64_t bytes, const char* predicted, const char* measured, double regret) {
    BestAtSize b;
    b.group = group;
    b.params = kByCalibration;
    b.bytes = bytes;
    b.predicted_best = predicted;
    b.measured_best = measured;
    b.regret = regret;
    a.best.push_back(b);
  }
  void crossover(const char* x, const char* y, double measured, double predicted) {
    PairCrossover c;
    c.group = group;
    c.params = kByCalibration;
    c.algo_a = x;
    c.algo_b = y;
    c.measured_B = {measured};
    if (!std::isnan(predicted)) c.predicted_B = {predicted};
    c.measured_interval_B = {{65536, 1 << 20}};
    if (measured < 65536) c.measured_interval_B = {{1024, 65536}};
    a.crossovers.push_back(c);
  }
};

TEST(LinkGrades, LeaveOutCpuLimitedRowsSizesAndCrossoversOnly) {
  Fixture f;
  f.predict("ring", 1024, 0.9);  // CPU-limited: out of the scope
  f.predict("ring", 65536, 0.05);
  f.predict("ring", 1 << 20, 0.15);
  f.predict("rhd", 1024, 0.3);
  f.predict("rhd", 65536, 0.02);
  f.predict("rhd", 1 << 20, 0.01);
  ConfigResult cr;
  for (const Measurement& m : f.rows) cr.points.push_back(&m);
  f.a.configs.push_back(cr);
  f.best(1024, "rhd", "rhd", 0);  // ring is CPU-limited at this size: left out
  f.best(65536, "ring", "ring|rhd", 0);
  f.best(1 << 20, "ring", "rhd", 0.1);
  f.crossover("ring", "rhd", 2000, 2000);      // next to ring at 1 KiB: left out
  f.crossover("tree", "rhd", 200000, 500000);  // 2.5x above, inside the interval
  f.crossover("tree", "ring", 300000, 400000); // within 2x
  f.crossover("rhd", "tree", 300000, NAN);     // not predicted
  f.a.grades = grades_of(f.a);
  grade_link_limited(f.a, f.links);

  ASSERT_EQ(f.a.grades.size(), 2u);
  const Grade& all = f.a.grades[0];
  const Grade& link = f.a.grades[1];
  EXPECT_EQ(all.targets, &kTargetsAllRows);
  EXPECT_EQ(all.rows_all, 6u);
  EXPECT_EQ(all.picks, 3u);
  EXPECT_EQ(link.targets, &kTargetsLinkLimited);
  EXPECT_EQ(link.rows_all, 5u);
  EXPECT_EQ(link.rows_large, 4u);
  EXPECT_NEAR(link.median_large, 0.035, 1e-12);  // 0.01 0.02 | 0.05 0.15
  EXPECT_NEAR(link.median_signed_large, 0.035, 1e-12);
  EXPECT_DOUBLE_EQ(link.median_all, 0.05);
  EXPECT_EQ(link.picks, 2u);
  EXPECT_EQ(link.picks_right, 1u);
  EXPECT_EQ(link.picks_left_out, 1u);
  EXPECT_DOUBLE_EQ(link.median_regret, 0.05);
  EXPECT_DOUBLE_EQ(link.worst_regret, 0.1);
  EXPECT_EQ(link.crossovers, 3u);
  EXPECT_EQ(link.crossovers_within_factor, 1u);
  EXPECT_EQ(link.crossovers_within_interval, 2u);

  EXPECT_EQ(f.a.crossovers[0].cpu_limited, std::optional<bool>(true));
  EXPECT_EQ(f.a.crossovers[0].verdict, "");
  EXPECT_EQ(f.a.crossovers[1].verdict, "above");
  EXPECT_TRUE(f.a.crossovers[1].within_interval);
  EXPECT_EQ(f.a.crossovers[2].verdict, "within");
  EXPECT_EQ(f.a.crossovers[3].verdict, "none");
  EXPECT_FALSE(f.a.crossovers[3].within_interval);
  EXPECT_EQ(f.a.best[0].cpu_limited, std::optional<bool>(true));
  EXPECT_EQ(f.a.best[1].cpu_limited, std::optional<bool>(false));

  // accuracy.csv: the link-limited row with its targets and verdicts
  // (picks 1 of 2 misses 90%, 1 of 3 crossovers within 2x misses "all").
  const std::string csv = accuracy_csv(f.a);
  // The last column, median_signed_err_large: the four errors are all positive.
  EXPECT_NE(csv.find(",link-limited,5,0.05,1,3,1,2,65536,0.1,1,,,0.2,1,,,0.9,0,0.05,1,2,0,0.035\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",all,6,"), std::string::npos) << csv;
}

// link-errors.csv: per level and algorithm, the median signed and |rel_err|
// over the scope's rows: ring's CPU-limited row at 1 KiB is left out (with it
// ring's medians would be 0.075 and 0.15 over 4 rows), rhd has none, the
// in-sample global fit is not graded, and an even count takes the mean of
// the middle two.
TEST(LinkErrors, MediansPerAlgorithmWithoutTheCpuLimitedRows) {
  Fixture f;
  f.predict("ring", 1024, 0.9);  // CPU-limited
  f.predict("ring", 65536, -0.2);
  f.predict("ring", 1 << 20, 0.05);
  f.predict("ring", 2 << 20, 0.1);
  f.predict("rhd", 1024, -0.3);
  f.predict("rhd", 65536, 0.02);
  f.predict("rhd", 1 << 20, 0.01);
  for (const auto& [bytes, e] : {std::pair<std::uint64_t, double>{1024, 0.5}, {65536, 0.1},
                                 {1 << 20, -0.3}})
    f.a.predictions.push_back({f.row("ring", bytes), "calibration+range", 1e-3, e, NAN});
  f.a.predictions.push_back({f.row("ring", 65536), kByGlobal, 1e-3, 0.7, NAN});
  EXPECT_EQ(link_errors_csv(f.a, f.links),
            "params,transport,scope,collective,algorithm,rows_all,median_signed_err_all,"
            "median_abs_err_all\n"
            "calibration,mpi,link-limited,allreduce,rhd,3,0.01,0.02\n"
            "calibration,mpi,link-limited,allreduce,ring,3,0.05,0.1\n"
            "calibration+range,mpi,link-limited,allreduce,ring,2,-0.1,0.2\n");
}

// errors.csv's bands split where the targets and the sign sentences do:
// 64 KiB and 1 MiB belong to the middle band, 2 MiB starts the top one.
TEST(Errors, BandsSplitAtTheTargetsSizes) {
  Fixture f;
  f.predict("ring", 1024, -0.5);
  f.predict("ring", 65536, 0.1);
  f.predict("ring", 1 << 20, -0.3);
  f.predict("ring", 2 << 20, 0.2);
  f.predict("ring", 4 << 20, 0.4);
  const std::string csv = errors_csv(f.a);
  // large: 0.1 0.2 0.3 0.4 -> 0.25, worst 0.4; mid: 0.1 -0.3 -> -0.1; top: 0.2 0.4 -> 0.3;
  // every size: 5 rows, median |err| 0.3, the worst -0.5 at 1 KiB, p = 4
  const std::string cells =
      ",4,0.25,0.4,-0.1,0.3,1,0.5,65536,1048576,2097152" + std::string(",5,0.3,-0.5,1024,4\n");
  EXPECT_NE(csv.find("calibration,mpi,allreduce,ring" + cells), std::string::npos) << csv;
  EXPECT_NE(csv.find("calibration,mpi,," + cells), std::string::npos) << csv;
}

// calibrated-link.csv holds each calibration's network level to the
// configured link at kTargetCalibratedLinkError: alpha against latency plus
// the stack's overhead, 1/beta against the wire's rate, in both directions.
TEST(CalibratedLink, NetworkLevelAgainstTheConfiguredLinkBothWays) {
  NetworkSetting net;
  net.latency_s = 2e-3;
  net.stack_overhead_s = 2e-4;
  net.wire_B_per_s = 25e6;
  CalibrationInput near, far;
  near.file = "near.csv";
  near.params.alpha_s = 2.2e-3 * 1.04;        // +4%: met
  near.params.beta_s_per_B = 1 / (25e6 * 0.96);  // -4%: met
  near.params.intra_alpha_s = 1e-4;
  near.params.intra_beta_s_per_B = 1e-9;
  far.file = "far.csv";
  far.params.alpha_s = 2.2e-3 * 0.94;         // -6%: missed
  far.params.beta_s_per_B = 1 / (25e6 * 1.06);   // +6%: missed
  const std::string csv = calibrated_link_csv({near, far}, net);
  const auto records = parse_csv(csv, "calibrated-link.csv");
  ASSERT_EQ(records.size(), 3u) << csv;
  const auto cell = [&](std::size_t row, const std::string& column) {
    const auto& head = records[0].fields;
    const auto at = std::find(head.begin(), head.end(), column) - head.begin();
    return records[row].fields.at(static_cast<std::size_t>(at));
  };
  EXPECT_EQ(cell(1, "calibration"), "near.csv");
  EXPECT_EQ(cell(1, "levels"), "2");
  EXPECT_EQ(cell(2, "levels"), "1");
  EXPECT_NEAR(std::stod(cell(1, "alpha_error")), 0.04, 1e-9);
  EXPECT_NEAR(std::stod(cell(1, "rate_error")), -0.04, 1e-9);
  EXPECT_EQ(cell(1, "met_alpha"), "1");
  EXPECT_EQ(cell(1, "met_rate"), "1");
  EXPECT_EQ(cell(2, "met_alpha"), "0");
  EXPECT_EQ(cell(2, "met_rate"), "0");
  EXPECT_DOUBLE_EQ(std::stod(cell(2, "target_rate_error")), kTargetCalibratedLinkError);
}

}  // namespace
}  // namespace cb::models
