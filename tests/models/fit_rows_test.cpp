// Which rows the global fit uses (models/fit_rows.hpp), and the crossover
// table's "faster below" (the winner below the first measured crossover).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "models/analysis.hpp"
#include "models/fit_rows.hpp"
#include "tests/models/textbook.hpp"

namespace cb::models {
namespace {

std::vector<Measurement> with_oversubscribed(const std::vector<bool>& over) {
  std::vector<Measurement> rows(over.size());
  for (std::size_t i = 0; i < over.size(); ++i) rows[i].oversubscribed = over[i];
  return rows;
}

std::vector<const Measurement*> pointers(const std::vector<Measurement>& rows) {
  std::vector<const Measurement*> out;
  for (const Measurement& m : rows) out.push_back(&m);
  return out;
}

TEST(FitRows, RowsWithACorePerRankAreFittedAloneWhenThereAreEnough) {
  const auto rows = with_oversubscribed({false, true, false, true, false});
  const FitRows f = choose_fit_rows(pointers(rows), 3);
  EXPECT_EQ(f.used, (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(f.left_out, 2u);
  EXPECT_NE(f.why.find("oversubscribed"), std::string::npos) << f.why;
  EXPECT_EQ(f.note, "");
}

TEST(FitRows, TooFewRowsWithACorePerRankFitEveryRowAndSaySo) {
  const auto rows = with_oversubscribed({false, true, true, true});
  const FitRows f = choose_fit_rows(pointers(rows), 3);
  EXPECT_EQ(f.used, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(f.left_out, 0u);
  EXPECT_NE(f.note.find("only 1 row(s) had a core per rank"), std::string::npos) << f.note;
  const auto none = with_oversubscribed({false, false, false});
  const FitRows g = choose_fit_rows(pointers(none), 3);
  EXPECT_EQ(g.used.size(), 3u);
  EXPECT_EQ(g.note, "");
  EXPECT_EQ(g.why, "");
}

// p = 2 rows follow the model exactly; p = 8 rows, oversubscribed, take 1.6x
// as long at small sizes and 1.1x at large ones (ranks waiting for cores):
// fitted together they pull alpha and beta apart. The fit returns the truth.
TEST(FitRows, GlobalFitIgnoresOversubscribedRowsThatWouldBendIt) {
  ResultsFile f;
  f.file = "synthetic.csv";
  for (Measurement m : test::synthetic_rows({2, 8}, 0.0, 1)) {
    if (m.scenario.p == 8) {
      m.oversubscribed = true;
      m.time_s *= m.bytes < 65536 ? 1.6 : 1.1;
    }
    m.ci_lo_s = m.ci_hi_s = m.time_s;
    f.rows.push_back(m);
  }
  AnalysisOptions opt;
  opt.config_resamples = 10;
  opt.global_resamples = 10;
  const Analysis a = analyze(f, opt);
  ASSERT_EQ(a.transports.size(), 1u);
  const TransportFit& tf = a.transports[0];
  ASSERT_TRUE(tf.fit);
  EXPECT_NEAR(tf.fit->params.alpha_s / test::kTruth.alpha_s, 1.0, 1e-3);
  EXPECT_NEAR(tf.fit->params.beta_s_per_B / test::kTruth.beta_s_per_B, 1.0, 1e-3);
  std::size_t over = 0;
  for (const Measurement& m : f.rows) over += m.oversubscribed;
  ASSERT_EQ(tf.excluded.size(), 1u);
  EXPECT_EQ(tf.excluded.begin()->second, over);
  EXPECT_EQ(tf.rows_used, f.rows.size() - over);
}

// Tied at the smallest size, tb_tree significantly faster at the middle
// sizes, tb_ring significantly faster at the largest: one crossover, and
// below it tb_tree was faster (not "tie").
TEST(CrossoverTable, FasterBelowIsTheWinnerBelowTheFirstCrossover) {
  ResultsFile f;
  f.file = "synthetic.csv";
  const std::uint64_t sizes[] = {1024, 4096, 16384, 65536, 262144};
  std::size_t line = 2;
  for (const AlgorithmEntry& e : test::textbook_entries()) {
    if (e.coll != Collective::allreduce || e.name == "tb_butterfly") continue;
    for (std::size_t i = 0; i < 5; ++i) {
      Measurement m;
      m.line = line++;
      m.transport = "synthetic";
      m.algorithm = std::string(e.name);
      m.entry = &e;
      m.scenario = {e.coll, 4, DataType::fp32, ReduceOp::sum, false};
      m.has_op = true;
      m.bytes = sizes[i];
      m.count = sizes[i] / 4;
      const bool tree = e.name == "tb_tree";
      // ring: 1.0 at every size; tree: 1.0, 0.8, 0.8, 1.3, 1.3 (x 1 ms)
      const double rel = !tree ? 1.0 : i == 0 ? 1.0 : i < 3 ? 0.8 : 1.3;
      m.time_s = 1e-3 * rel * (1 + 0.01 * static_cast<double>(i));
      m.ci_lo_s = m.time_s * 0.95;
      m.ci_hi_s = m.time_s * 1.05;
      f.rows.push_back(m);
    }
  }
  AnalysisOptions opt;
  opt.config_resamples = 10;
  opt.global_resamples = 10;
  const Analysis a = analyze(f, opt);
  bool seen = false;
  for (const PairCrossover& c : a.crossovers) {
    ASSERT_EQ(c.measured_B.size(), 1u) << c.algo_a << " vs " << c.algo_b;
    EXPECT_GT(c.measured_B.front(), 16384);
    EXPECT_LT(c.measured_B.front(), 65536);
    EXPECT_EQ(c.measured_faster_below, "tb_tree");
    seen = true;
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace cb::models
