// The honest parts of the model report: tie-aware "model picks the best"
// counting and the crossover rule (CI separation, identical-schedule groups,
// 3 significant digits). Markdown escaping and the sign prose of the
// rendered report: report_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>

#include "algorithms/registry.hpp"
#include "models/analysis.hpp"
#include "models/crossover.hpp"
#include "models/outputs.hpp"
#include "models/schedule_model.hpp"

namespace cb::models {
namespace {

// 48 sizes at which the model cannot tell butterfly and naive apart and the
// measurement says naive: a string comparison ("butterfly|naive" ==
// "naive") counts 0 of 48; membership counts all 48.
TEST(Choices, TieSetsCountByMembershipNotByString) {
  Analysis a;
  for (int i = 0; i < 48; ++i) {
    BestAtSize b;
    b.group.transport = "mpi";
    b.params = kByCalibration;
    b.bytes = 8u << i % 24;
    b.predicted_best = "butterfly|naive";
    b.measured_best = i % 2 ? "naive" : "naive|ring";
    b.predicted_best_measured_s = b.measured_best_s = 1e-6;
    a.best.push_back(b);
  }
  std::size_t by_string = 0;
  for (const BestAtSize& b : a.best) by_string += b.predicted_best == b.measured_best;
  EXPECT_EQ(by_string, 0u);
  std::size_t right = 0;
  for (const BestAtSize& b : a.best) right += b.model_right();
  EXPECT_EQ(right, 48u);
  // The count every output shows comes from the same rule.
  a.grades = grades_of(a);
  const std::string csv = accuracy_csv(a);
  EXPECT_NE(csv.find(",48,48,"), std::string::npos) << csv;
  EXPECT_FALSE(tie_sets_overlap("butterfly|naive", "ring|rhd"));
  EXPECT_TRUE(tie_sets_overlap("rhd", "ring|rhd"));
  EXPECT_FALSE(tie_sets_overlap("ring", "ringx"));
}

TEST(Crossovers, OverlappingIntervalsAreTiesNotCrossovers) {
  const std::vector<double> n = {8, 64, 512, 4096};
  // Medians alternate but every interval overlaps the other's: noise.
  const std::vector<TimeCI> a = {{1.0, 0.9, 1.1}, {1.02, 0.9, 1.1}, {0.99, 0.9, 1.1}, {1.01, 0.9, 1.1}};
  const std::vector<TimeCI> b = {{1.01, 0.9, 1.1}, {1.0, 0.9, 1.1}, {1.0, 0.9, 1.1}, {1.0, 0.9, 1.1}};
  EXPECT_TRUE(separated_crossings(n, a, b).empty());
  // The old rule saw three crossings in the same data.
  std::vector<double> ta, tb;
  for (std::size_t i = 0; i < n.size(); ++i) {
    ta.push_back(a[i].median);
    tb.push_back(b[i].median);
  }
  EXPECT_EQ(measured_crossings(n, ta, tb).size(), 3u);
}

TEST(Crossovers, SeparatedOnBothSidesGivesOneCrossingAtTheMediansSignChange) {
  const std::vector<double> n = {100, 1000, 10000, 100000};
  // a clearly faster at 100, tie at 1000 (medians already favour b), b
  // clearly faster from 10000: one crossing, between 100 and 1000.
  const std::vector<TimeCI> a = {{1, 0.95, 1.05}, {2.1, 1.8, 2.4}, {4, 3.9, 4.1}, {8, 7.9, 8.1}};
  const std::vector<TimeCI> b = {{2, 1.9, 2.1}, {2.0, 1.9, 2.1}, {2, 1.9, 2.1}, {2, 1.9, 2.1}};
  const auto x = separated_crossings(n, a, b);
  ASSERT_EQ(x.size(), 1u);
  EXPECT_FALSE(x[0].a_faster_after);
  EXPECT_GT(x[0].bytes, 100);
  EXPECT_LT(x[0].bytes, 1000);
  // One side separated only: no crossover.
  std::vector<TimeCI> b2 = b;
  b2[2] = b2[3] = {4, 3.5, 9};
  EXPECT_TRUE(separated_crossings(n, a, b2).empty());
}

TEST(Crossovers, SizesHaveThreeSignificantDigits) {
  EXPECT_DOUBLE_EQ(three_digits(8.08237), 8.08);
  EXPECT_DOUBLE_EQ(three_digits(123456), 123000);
  EXPECT_EQ(crossover_size_text(8.08237), "8.08 B");
  EXPECT_EQ(crossover_size_text(1263.7), "1.23 KiB");
  EXPECT_EQ(crossover_size_text(3 << 20), "3 MiB");
}

TEST(Crossovers, IdenticalSchedulesAtTwoRanksFormOneGroup) {
  // At p = 2 the parameter server and the binomial tree all-reduce both
  // send the whole vector one way and back: the same messages per step.
  const Scenario s{Collective::allreduce, 2, DataType::fp32, ReduceOp::sum, false};
  std::vector<const AlgorithmEntry*> e = {&find_algorithm(Collective::allreduce, "ps"),
                                          &find_algorithm(Collective::allreduce, "tree"),
                                          &find_algorithm(Collective::allreduce, "ring"),
                                          nullptr};
  const auto rep = identical_schedule_groups(e, s, 2, 1 << 20);
  EXPECT_EQ(rep[0], 0u);
  EXPECT_EQ(rep[1], 0u);
  EXPECT_EQ(rep[2], 2u);  // ring halves the vector: different messages
  EXPECT_EQ(rep[3], 3u);  // a library baseline is its own group
  // At p = 8 they differ.
  const Scenario s8{Collective::allreduce, 8, DataType::fp32, ReduceOp::sum, false};
  EXPECT_EQ(identical_schedule_groups(e, s8, 8, 1 << 20)[1], 1u);
}

// A rank whose schedule ends early is idle in the longest rank's remaining
// steps: an explicit idle step compares equal to none, a busy one does not,
// and schedules whose longest ranks differ in length never match.
TEST(Groups, SameWorkTreatsMissingStepsAsIdle) {
  const StepWork busy{1, 1, 64, 64, 0, 0};
  const StepWork idle;
  const ScheduleWork a = {{busy, busy}, {busy}};
  EXPECT_TRUE(same_work(a, ScheduleWork{{busy, busy}, {busy, idle}}));
  EXPECT_FALSE(same_work(a, ScheduleWork{{busy, busy}, {busy, busy}}));
  EXPECT_FALSE(same_work(a, ScheduleWork{{busy, busy, idle}, {busy}}));
  EXPECT_FALSE(same_work(a, ScheduleWork{{busy, busy}}));
  StepWork reducing = busy;
  reducing.recv_reduced_B = 64;
  EXPECT_FALSE(same_work(a, ScheduleWork{{busy, reducing}, {busy}}));
}

// Grouping compares every rank up to 64 ranks (the study's and testbed's
// files: exact) and at most 64 beyond, in rank order with both ends, so a
// file of hundreds of rank counts is not O(p^2) per count.
TEST(Groups, ComparedRanksAreAllUpTo64ThenAtMost64WithBothEnds) {
  for (int p : {1, 2, 7, 64}) {
    const std::vector<int> r = compared_ranks(p);
    ASSERT_EQ(r.size(), static_cast<std::size_t>(p));
    for (int i = 0; i < p; ++i) EXPECT_EQ(r[static_cast<std::size_t>(i)], i);
  }
  for (int p : {65, 100, 647, 65536}) {
    SCOPED_TRACE(p);
    const std::vector<int> r = compared_ranks(p);
    EXPECT_LE(r.size(), 64u);
    EXPECT_GE(r.size(), 33u);
    EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
    EXPECT_EQ(std::adjacent_find(r.begin(), r.end()), r.end());
    EXPECT_EQ(r.front(), 0);
    EXPECT_EQ(r.back(), p - 1);
    EXPECT_EQ(r[15], 15);
    EXPECT_EQ(r[r.size() - 16], p - 16);
  }
}

}  // namespace
}  // namespace cb::models
