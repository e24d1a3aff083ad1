// Hierarchical against flat crossovers (models::family_crossovers) on
// hand-made rows whose crossings are known: two hierarchical and two flat
// algorithms of all-reduce on 3 nodes x 2 ranks.
#include "models/family_crossovers.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "algorithms/registry.hpp"
#include "tests/models/two_level_row.hpp"

namespace cb::models {
namespace {

// Rows that outlive the Analysis pointing at them.
struct Rows {
  std::deque<Measurement> rows;
  Analysis a;
  // A row of `algo` at `bytes` measured at `t` s (CI +-1%) and predicted at `pred` s.
  void add(std::string_view algo, std::uint64_t bytes, double t, double pred,
           const std::string& params = std::string(kByCalibration)) {
    Measurement& m = rows.emplace_back(two_level_row(algo, bytes, t));
    Prediction p;
    p.row = &m;
    p.params = params;
    p.predicted_s = pred;
    p.rel_err = pred / t - 1;
    a.predictions.push_back(p);
  }
};

const std::uint64_t kSizes[] = {1024, 4096, 16384, 65536, 262144};

// Measured: hierarchical fastest up to 16 KiB, flat from 64 KiB (each family's
// fastest member changes along the way); predicted: the same flip between
// 16 and 64 KiB, so within 2x; one-level rows and kByConfig are left out.
TEST(FamilyCrossovers, FastestOfEachFamilyCrossesAndIsJudged) {
  Rows r;
  for (std::size_t i = 0; i < std::size(kSizes); ++i) {
    const std::uint64_t b = kSizes[i];
    const bool small = i < 3;
    r.add("hier2d:ring/ring", b, small ? 1.0 : 3.0, small ? 1.0 : 3.0);
    r.add("hier:tree/ring", b, small ? 1.5 : 2.5, small ? 1.5 : 2.5);  // best hier at 64K+
    r.add("ring", b, small ? 2.0 : 1.0, small ? 2.0 : 1.0);
    r.add("rhd", b, small ? 2.2 : 1.8, small ? 2.2 : 1.8);
    r.add("ring", b, 9.0, 9.0, std::string(kByConfig));
  }
  const std::vector<PairCrossover> xs = family_crossovers(r.a);
  ASSERT_EQ(xs.size(), 1u);
  const PairCrossover& c = xs.front();
  EXPECT_EQ(c.algo_a, kHierarchicalFamily);
  EXPECT_EQ(c.algo_b, kFlatFamily);
  EXPECT_EQ(c.measured_faster_below, kHierarchicalFamily);
  EXPECT_EQ(c.predicted_faster_below, kHierarchicalFamily);
  ASSERT_EQ(c.measured_B.size(), 1u);
  ASSERT_EQ(c.predicted_B.size(), 1u);
  EXPECT_GT(c.measured_B[0], 16384);
  EXPECT_LT(c.measured_B[0], 65536);
  EXPECT_EQ(c.measured_interval_B[0], std::make_pair(16384.0, 65536.0));
  EXPECT_EQ(c.verdict, "within");
}

// Predicted to flip two sizes later (256 KiB instead of 16-64 KiB): more than
// 2x off, "above", and the hierarchical grade counts it as missed.
TEST(FamilyCrossovers, LateFlipIsAboveAndCountsAgainstTheTarget) {
  Rows r;
  for (std::size_t i = 0; i < std::size(kSizes); ++i) {
    const std::uint64_t b = kSizes[i];
    r.add("hier2d:ring/ring", b, i < 3 ? 1.0 : 3.0, i < 4 ? 1.0 : 3.0);
    r.add("ring", b, i < 3 ? 2.0 : 1.0, i < 4 ? 2.0 : 1.0);
  }
  r.a.family_crossovers = family_crossovers(r.a);
  ASSERT_EQ(r.a.family_crossovers.size(), 1u);
  EXPECT_EQ(r.a.family_crossovers[0].verdict, "above");
  EXPECT_FALSE(r.a.family_crossovers[0].within_interval);
  bool found = false;
  for (const Grade& g : family_grades(r.a))
    if (g.targets->scope == "hierarchical") {
      found = true;
      EXPECT_EQ(g.crossovers, 1u);
      EXPECT_EQ(g.crossovers_within_factor, 0u);
    }
  EXPECT_TRUE(found);
}

// Overlapping CIs everywhere: no measured crossing, "tie" below, no verdict.
TEST(FamilyCrossovers, TiesMakeNoCrossing) {
  Rows r;
  for (const std::uint64_t b : kSizes) {
    r.add("hier2d:ring/ring", b, 1.0, 1.0);
    r.add("ring", b, 1.005, 2.0);
  }
  const std::vector<PairCrossover> xs = family_crossovers(r.a);
  ASSERT_EQ(xs.size(), 1u);
  EXPECT_TRUE(xs[0].measured_B.empty());
  EXPECT_EQ(xs[0].measured_faster_below, "tie");
  EXPECT_TRUE(xs[0].verdict.empty());
}

// One node (no two-level layout): nothing to compare.
TEST(FamilyCrossovers, OneLevelRowsHaveNone) {
  Rows r;
  for (const std::uint64_t b : kSizes) {
    r.add("hier2d:ring/ring", b, 1.0, 1.0);
    r.add("ring", b, 2.0, 2.0);
  }
  for (Measurement& m : r.rows) m.scenario.ranks_per_node = 0;
  EXPECT_TRUE(family_crossovers(r.a).empty());
}

}  // namespace
}  // namespace cb::models
