// models/miss_classes.hpp: the class of a missed crossover, each rule at its
// boundary (ends counted as the header says), so that a mutated comparison
// fails here; scripts/testbed/classify_crossovers.py only counts the classes.
#include "models/miss_classes.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cb::models {
namespace {

// A case no rule but "other" holds: p = 2 on 2 cores, 1 MiB, a priced 50%
// above b where the measured ratio's interval is [0.99, 1.01]. Values are
// exact in binary, so that each boundary below is met exactly.
MissCase other_case() {
  MissCase c;
  c.ranks = 2;
  c.cores = 2;
  c.stack_overhead_s = 100e-6;
  c.nearest_B = 1 << 20;
  c.a = {1.0, 0.995, 1.005, 1.5};
  c.b = {1.0, 0.995, 1.005, 1.0};
  c.rounds_a = 4;
  c.rounds_b = 1;
  c.adjacent = {{c.a, c.b}};
  return c;
}

std::string class_of(const MissCase& c) {
  const MissClass k = classify_miss(c);
  return std::string(k.klass) + " " + std::string(k.cause);
}

TEST(MissClasses, NoRuleHoldsIsOther) { EXPECT_EQ(class_of(other_case()), "iv other"); }

TEST(MissClasses, PredictionInsideTheIntervalEndsCounted) {
  MissCase c = other_case();
  c.interval_B = {{1000, 4000}};
  c.predicted_B = 4000;
  EXPECT_EQ(class_of(c), "i interval");
  c.predicted_B = 1000;
  EXPECT_EQ(class_of(c), "i interval");
  c.predicted_B = 4001;
  EXPECT_EQ(class_of(c), "iv other");
  c.predicted_B.reset();  // not predicted: never inside
  EXPECT_EQ(class_of(c), "iv other");
}

TEST(MissClasses, ModelRatioInsideTheMeasuredRatiosIntervalAtEveryAdjacentSize) {
  MissCase c = other_case();
  // Measured ratio interval [0.75 / 1, 1.5 / 1]; model 1.5: the end counts.
  const SideAtSize a{1.0, 0.75, 1.5, 1.5}, b{1.0, 1.0, 1.0, 1.0};
  c.adjacent = {{a, b}};
  EXPECT_EQ(class_of(c), "i parallel");
  // The low end: model 0.75.
  c.adjacent = {{SideAtSize{1.0, 0.75, 1.5, 0.75}, b}};
  EXPECT_EQ(class_of(c), "i parallel");
  // One adjacent size outside is enough to refuse it.
  c.adjacent = {{a, b}, {SideAtSize{1.0, 0.75, 1.5, 1.5625}, b}};
  EXPECT_EQ(class_of(c), "iv other");
  c.adjacent = {{SideAtSize{1.0, 0.75, 1.5, 0.6875}, b}};
  EXPECT_EQ(class_of(c), "iv other");
}

TEST(MissClasses, CpuGapAtLeastTheModelGapAboveTheCores) {
  MissCase c = other_case();
  c.ranks = 4;  // p / cores - 1 = 1
  c.rounds_a = 3;
  c.rounds_b = 1;
  c.stack_overhead_s = 0.25;  // cpu gap 2 x 0.25 x 1 = 0.5 s = the model gap
  const MissClass k = classify_miss(c);
  EXPECT_EQ(std::string(k.klass) + " " + std::string(k.cause), "ii cpu");
  EXPECT_EQ(k.cpu_gap_s, 0.5);
  EXPECT_EQ(k.model_gap_s, 0.5);
  c.stack_overhead_s = 0.2421875;  // just below the model's gap
  EXPECT_EQ(class_of(c), "iv other");
  // At p = cores no rank waits for a core, however large the overhead, and
  // the rule does not hold even where the model's gap is 0 too.
  c.ranks = 2;
  c.stack_overhead_s = 10;
  EXPECT_EQ(class_of(c), "iv other");
  c.a.predicted_s = c.b.predicted_s;
  EXPECT_EQ(class_of(c), "iv other");
  c.a.predicted_s = 1.5;
  // Above the cores but a fraction of a rank waits: p = 3 on 2 cores
  // stretches by 0.5, 2 x 0.5 x 0.5 = 0.5 s.
  c.ranks = 3;
  c.stack_overhead_s = 0.5;
  EXPECT_EQ(class_of(c), "ii cpu");
}

TEST(MissClasses, IncastNeedsADirectSideUnderPredictedAtThreeRanksFrom256KiB) {
  MissCase c = other_case();
  c.ranks = 3;
  c.cores = 4;  // not CPU-limited
  c.nearest_B = 256 * 1024;
  // b is direct and under-predicted against a (err_b 0 < err_a 0.5).
  c.direct_b = true;
  EXPECT_EQ(class_of(c), "iii incast");
  // The direct side over-predicted: not incast.
  c.direct_b = false;
  c.direct_a = true;
  EXPECT_EQ(class_of(c), "iv other");
  c.direct_a = false;
  c.direct_b = true;
  c.nearest_B = 256 * 1024 - 1;
  EXPECT_EQ(class_of(c), "iv other");
  c.nearest_B = 256 * 1024;
  c.ranks = 2;
  EXPECT_EQ(class_of(c), "iv other");
  // Equal errors: neither side is the under-predicted one.
  c.ranks = 3;
  c.a.predicted_s = 1.0;
  c.adjacent = {{SideAtSize{1.0, 0.995, 1.005, 1.5}, c.b}};
  EXPECT_EQ(class_of(c), "iv other");
  c.direct_b = false;
  c.direct_a = true;
  EXPECT_EQ(class_of(c), "iv other");
  // a direct and under-predicted (err_a -0.5 < err_b 0).
  c.a.predicted_s = 0.5;
  EXPECT_EQ(class_of(c), "iii incast");
}

TEST(MissClasses, LatencyCountBelow64KiB) {
  MissCase c = other_case();
  c.nearest_B = 64 * 1024 - 1;
  EXPECT_EQ(class_of(c), "iii latency count");
  c.nearest_B = 64 * 1024;
  EXPECT_EQ(class_of(c), "iv other");
}

TEST(MissClasses, FirstRuleThatHoldsWins) {
  MissCase c = other_case();
  c.nearest_B = 1024;  // latency count holds
  c.ranks = 4;
  c.stack_overhead_s = 1;  // and cpu
  EXPECT_EQ(class_of(c), "ii cpu");
  c.interval_B = {{512, 2048}};
  c.predicted_B = 1024;  // and interval
  EXPECT_EQ(class_of(c), "i interval");
}

}  // namespace
}  // namespace cb::models
