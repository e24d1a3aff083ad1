// Predictions at any scale and the lower bounds they are compared with.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/lower_bound.hpp"
#include "models/predict.hpp"

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
