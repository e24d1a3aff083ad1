// Predicted crossovers against a brute-force scan of every count, and the
// log-size interpolation of measured crossovers.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "models/crossover.hpp"
#include "tests/models/textbook.hpp"

namespace cb::models {
namespace {

// The definition predicted_crossings implements, evaluated at every count.
std::vector<PredictedCrossing> brute_force(const AlgorithmEntry& a, const AlgorithmEntry& b,
                                           const Scenario& s, const ModelParams& m,
                                           std::uint64_t lo, std::uint64_t hi) {
  std::vector<PredictedCrossing> out;
  int last = 0;
  for (std::uint64_t c = lo; c <= hi; ++c) {
    const double ta = predict_seconds(a, s, c, m), tb = predict_seconds(b, s, c, m);
    const int w = std::fabs(ta - tb) <= 1e-12 * std::max(ta, tb) ? 0 : (ta < tb ? 1 : -1);
    if (w != 0 && last != 0 && w != last) out.push_back({c, w > 0});
    if (w != 0) last = w;
  }
  return out;
}

void expect_same(const std::vector<PredictedCrossing>& got,
                 const std::vector<PredictedCrossing>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].count, want[i].count) << what << " crossing " << i;
    EXPECT_EQ(got[i].a_faster_after, want[i].a_faster_after) << what << " crossing " << i;
  }
}

// Above the exhaustive range the scan may merge a cluster of crossings (costs
// within a rounding of each other, flipping with the parity of the count)
// into one: the first crossing is exact, every reported crossing is a real
// one, and every real one lies within 1% of a reported one.
void expect_consistent(const std::vector<PredictedCrossing>& got,
                       const std::vector<PredictedCrossing>& want, const std::string& what) {
  ASSERT_EQ(got.empty(), want.empty()) << what;
  if (got.empty()) return;
  EXPECT_EQ(got.front().count, want.front().count) << what;
  for (const PredictedCrossing& g : got)
    EXPECT_TRUE(std::any_of(want.begin(), want.end(),
                            [&](const PredictedCrossing& w) { return w.count == g.count; }))
        << what << ": reported " << g.count << " is no crossing";
  for (const PredictedCrossing& w : want)
    EXPECT_TRUE(std::any_of(got.begin(), got.end(),
                            [&](const PredictedCrossing& g) {
                              return std::fabs(static_cast<double>(g.count) -
                                               static_cast<double>(w.count)) <=
                                     0.01 * static_cast<double>(w.count);
                            }))
        << what << ": crossing at " << w.count << " missed";
}

TEST(PredictedCrossings, RingVsButterflyMatchesTheAnalyticSize) {
  const auto& tb = test::textbook_entries();
  const AlgorithmEntry& ring = tb[0];
  const AlgorithmEntry& butterfly = tb[1];
  const Scenario s{Collective::allreduce, 8, DataType::fp32, ReduceOp::sum, false};
  const ModelParams m{2e-6, 1e-10, 0};
  // 14a + 1.75 n b = 3a + 3 n b  =>  n* = 11a / (1.25 b) = 176000 B = 44000 floats.
  const auto x = predicted_crossings(ring, butterfly, s, m, 1, 1u << 24);
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].count, 44001u);  // at exactly 44000 they tie
  EXPECT_TRUE(x[0].a_faster_after);
  expect_same(x, brute_force(ring, butterfly, s, m, 1, 200000), "ring vs butterfly");
}

TEST(PredictedCrossings, MatchBruteForceForEveryRegistryPair) {
  ASSERT_FALSE(all_algorithms().empty()) << "the registry holds no algorithm";
  const ModelParams m{3e-6, 2e-10, 1e-10};
  std::size_t pairs = 0;
  for (Collective coll : kAllCollectives) {
    const auto table = algorithms_for(coll);
    for (int p : {3, 8, 12}) {
      const Scenario s{coll, p, DataType::fp32, ReduceOp::sum, false};
      for (std::size_t i = 0; i < table.size(); ++i)
        for (std::size_t j = i + 1; j < table.size(); ++j) {
          const std::string what = fmt::format("{} {} vs {} p={}", to_string(coll),
                                               table[i].name, table[j].name, p);
          expect_same(predicted_crossings(table[i], table[j], s, m, 1, 4096),
                      brute_force(table[i], table[j], s, m, 1, 4096), what);
          // Pipelined algorithms change their segment count with the size:
          // their cost steps make the winner flicker over wide ranges.
          if (table[i].segmented || table[j].segmented) continue;
          expect_consistent(predicted_crossings(table[i], table[j], s, m, 1, 30000),
                            brute_force(table[i], table[j], s, m, 1, 30000), what);
          ++pairs;
        }
    }
  }
  EXPECT_GT(pairs, 0u);
}

TEST(MeasuredCrossings, InterpolatesInLogSize) {
  // log(ta/tb) goes from +log 2 at 1 KiB to -log 2 at 4 KiB: crossing at 2 KiB.
  const auto x = measured_crossings({512, 1024, 4096, 8192}, {4, 2, 1, 1}, {1, 1, 2, 4});
  ASSERT_EQ(x.size(), 1u);
  EXPECT_NEAR(x[0].bytes, 2048, 1e-6);
  EXPECT_TRUE(x[0].a_faster_after);
}

TEST(MeasuredCrossings, TiesKeepTheWinnerAndSeveralCrossingsAreAllReported) {
  const auto x = measured_crossings({1, 2, 4, 8, 16}, {1, 1, 3, 1, 3}, {2, 1, 1, 2, 1});
  ASSERT_EQ(x.size(), 3u);
  // From -log 2 at 1 B to +log 3 at 4 B (2 B is a tie and skipped).
  EXPECT_NEAR(x[0].bytes, std::pow(4.0, std::log(2) / (std::log(2) + std::log(3))), 1e-9);
  EXPECT_FALSE(x[0].a_faster_after);
  EXPECT_TRUE(x[1].a_faster_after);
  EXPECT_FALSE(x[2].a_faster_after);
}

}  // namespace
}  // namespace cb::models
