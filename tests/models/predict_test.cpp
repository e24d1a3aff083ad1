// Predictions at any scale and the lower bounds they are compared with.
#include "models/predict.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/lower_bound.hpp"
#include "models/two_level.hpp"

namespace cb::models {
namespace {

TEST(LowerBound, MatchesTheReferenceFormulas) {
  // all-reduce at p = 8, n = 800 B: 3 a + 1400 b + 700 g.
  EXPECT_EQ(lower_bound(Collective::allreduce, 8, 800), (Cost{3, 1400, 700}));
  EXPECT_EQ(lower_bound(Collective::reduce_scatter, 5, 1000), (Cost{3, 800, 800}));
  EXPECT_EQ(lower_bound(Collective::allgather, 2, 64), (Cost{1, 32, 0}));
  EXPECT_EQ(lower_bound(Collective::alltoall, 1, 64), (Cost{0, 0, 0}));
}

TEST(LowerBound, OnTwoLevelsPricesAtTheCheaperLevel) {
  // all-reduce at p = 8, n = 800 B: 3 a + 1400 b + 700 g, a and b the cheaper
  // level's (here intra-node alpha, the network's beta); one level: m's own.
  ModelParams m{2e-3, 4e-8, 1e-10};
  m.intra_alpha_s = 8e-5;
  m.intra_beta_s_per_B = 5e-8;
  EXPECT_DOUBLE_EQ(lower_bound_seconds(Collective::allreduce, 8, 800, 2, m),
                   3 * 8e-5 + 1400 * 4e-8 + 700 * 1e-10);
  EXPECT_DOUBLE_EQ(lower_bound_seconds(Collective::allreduce, 8, 800, 0, m),
                   3 * 2e-3 + 1400 * 4e-8 + 700 * 1e-10);
  const ModelParams flat{2e-3, 4e-8, 1e-10};
  EXPECT_DOUBLE_EQ(lower_bound_seconds(Collective::allreduce, 8, 800, 2, flat),
                   3 * 2e-3 + 1400 * 4e-8 + 700 * 1e-10);
}

// With the network's gap a step's messages overlap their latencies: the
// bound drops the single port's ceil(lg p) rounds for min(2 a, a + (p-2) g')
// and no schedule, flat or hierarchical, priced by level beats it.
TEST(LowerBound, WithAGapNoScheduleOnTwoLevelsBeatsIt) {
  ModelParams m{2e-3, 4e-8, 1e-10};
  m.intra_alpha_s = 1.5e-3;  // near the network's, as on the testbed: lg p rounds would not bound
  m.intra_beta_s_per_B = 5e-9;
  m.network_gap_s = 2e-5;
  EXPECT_DOUBLE_EQ(lower_bound_seconds(Collective::allgather, 6, 600, 2, m),
                   1.5e-3 + 4 * 2e-5 + 500 * 5e-9);
  m.network_gap_s = 1e-3;  // a + (p-2) g' = 5.5 ms: 2 a the smaller
  EXPECT_DOUBLE_EQ(lower_bound_seconds(Collective::allgather, 6, 600, 2, m), 3e-3 + 500 * 5e-9);
  EXPECT_DOUBLE_EQ(lower_bound_seconds(Collective::allgather, 2, 64, 1, m), 1.5e-3 + 32 * 5e-9);
  int checked = 0;
  for (double gap : {0.0, 2e-5, 1e-3})
    for (auto [nodes, k] : {std::pair{3, 1}, std::pair{2, 2}, std::pair{3, 2}, std::pair{2, 4},
                            std::pair{4, 2}, std::pair{5, 3}}) {
      m.network_gap_s = gap;
      const int p = nodes * k;
      for (const AlgorithmEntry* e : all_algorithms())
        for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t(4 * p + 1)}) {
          const Scenario s{e->coll, p, DataType::fp32, ReduceOp::sum, false, k};
          CollParams params = coll_params(s, count);
          double t = 0;
          try {
            t = level_seconds(*e, params, m);
          } catch (const UsageError&) {
            continue;  // a layout the algorithm refuses
          }
          const double n = static_cast<double>(bytes_for_count(e->coll, p, s.dtype, count));
          // Blocks of whole elements: the bound's n/p may exceed a share by < 1 element.
          EXPECT_GE(t + 4 * p * (m.beta_s_per_B + m.gamma_s_per_B) * 2,
                    lower_bound_seconds(e->coll, p, n, k, m))
              << fmt::format("{}/{} {}x{} count={} gap={}", to_string(e->coll), e->name, nodes, k,
                             count, gap);
          ++checked;
        }
    }
  EXPECT_GT(checked, 500);
}

TEST(LowerBound, NoRegistryAlgorithmBeatsItsCollectivesBound) {
  ASSERT_FALSE(all_algorithms().empty()) << "the registry holds no algorithm";
  for (const AlgorithmEntry* e : all_algorithms())
    for (int p = 1; p <= 64; ++p)
      for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t(p), std::uint64_t(4 * p + 1),
                                  std::uint64_t{10007}}) {
        const Scenario s{e->coll, p, DataType::fp32, ReduceOp::sum, false};
        const Cost c = model_cost(*e, s, count);
        const Cost lb = lower_bound(
            e->coll, p, static_cast<double>(bytes_for_count(e->coll, p, s.dtype, count)));
        const std::string what =
            fmt::format("{}/{} p={} count={}", to_string(e->coll), e->name, p, count);
        EXPECT_GE(c.alpha, lb.alpha) << what;
        // Blocks of whole elements: the bound's n/p may exceed a rank's share by < 1 element.
        EXPECT_GE(c.beta + 4 * p, lb.beta) << what;
        EXPECT_GE(c.gamma + 4 * p, lb.gamma) << what;
      }
}

TEST(PredictTable, EveryAlgorithmAtLargeScaleWithBestAndBound) {
  ASSERT_FALSE(all_algorithms().empty()) << "the registry holds no algorithm";
  const ModelParams m{2e-6, 1e-10, 2e-10};
  for (Collective coll : kAllCollectives) {
    const auto algos = algorithms_for(coll);
    if (algos.empty()) continue;
    const Scenario s{coll, 16384, DataType::fp32, ReduceOp::sum, false};
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t b = 8; b <= (std::uint64_t{1} << 30); b *= 4) sizes.push_back(b);
    const auto rows = predict_table(s, sizes, m);
    ASSERT_FALSE(rows.empty());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const PredictedRow& r = rows[i];
      ASSERT_EQ(r.seconds.size(), algos.size());
      if (i > 0) {
        EXPECT_GT(r.bytes, rows[i - 1].bytes);
      }
      for (double t : r.seconds) {
        EXPECT_GE(t, r.seconds[r.best]);
        EXPECT_GE(t * (1 + 1e-9), r.lower_bound_s * 0.999) << to_string(coll);
      }
    }
  }
}

TEST(PredictTable, RoundsSizesToWholeCounts) {
  // allgather at p = 3, fp32: S is a multiple of 12 B, at least one element each.
  EXPECT_EQ(count_for_bytes(Collective::allgather, 3, DataType::fp32, 24), 2u);
  EXPECT_FALSE(count_for_bytes(Collective::allgather, 3, DataType::fp32, 25).has_value());
  EXPECT_EQ(bytes_for_count(Collective::allreduce, 3, DataType::fp64, 5), 40u);
}

}  // namespace
}  // namespace cb::models
