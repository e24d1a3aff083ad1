// Per-family grades of two-level rows (models::family_grades) on a fixture of
// real rows: tests/fixtures/two-level-3x2 holds 20 rows of the testbed sweep
// in results/two-level-3x2-2ms-200Mbit (3 hosts x 2 ranks, 2 ms / 200 Mbit/s:
// flat ring and rhd, hier2d:ring/ring, hier2d:ring/rhd and hier2d:rhd/naive
// at 32 KiB .. 2 MiB) and that run's two-level calibration.
#include <gtest/gtest.h>

#include <string>

#include "models/analysis.hpp"
#include "models/calibration.hpp"
#include "models/results_csv.hpp"

namespace cb::models {
namespace {

const std::string kDir = std::string(CB_SOURCE_DIR) + "/tests/fixtures/two-level-3x2/";

const Grade* find(const Analysis& a, std::string_view params, std::string_view scope) {
  for (const Grade& g : a.grades)
    if (g.params == params && g.targets->scope == scope) return &g;
  return nullptr;
}

Analysis fit(const ModelParams& m) {
  AnalysisOptions opt;
  opt.config_resamples = 20;
  opt.global_resamples = 20;
  CalibrationInput c;
  c.file = kDir + "calibration.csv";
  c.params = m;
  opt.calibrations.push_back(c);
  return analyze(read_results_csv(kDir + "allreduce.csv"), opt);
}

// Priced by level, with each host's two ranks sharing its link, the
// hierarchical rows at >= 64 KiB come within 25% (median), graded apart from
// the flat ones, each family on its own rows, beside the scope of all rows.
TEST(FamilyGrades, TwoLevelRowsAreGradedPerFamily) {
  const ModelParams two = load_model_params(kDir + "calibration.csv", std::nullopt, nullptr);
  ASSERT_TRUE(two.two_level());
  const Analysis a = fit(two);
  const Grade* hier = find(a, kByCalibration, "hierarchical");
  const Grade* flat = find(a, kByCalibration, "flat");
  ASSERT_NE(hier, nullptr);
  ASSERT_NE(flat, nullptr);
  EXPECT_EQ(hier->rows_large, 9u);  // 3 algorithms x 128 KiB, 512 KiB, 2 MiB
  EXPECT_EQ(flat->rows_large, 6u);
  EXPECT_EQ(hier->rows_all, 12u);
  EXPECT_LE(hier->median_large, 0.25);
  EXPECT_LE(flat->median_large, 0.25);
  EXPECT_EQ(hier->targets->median_abs_err_large, 0.10);
  ASSERT_NE(find(a, kByCalibration, "all"), nullptr);

}

// One-level rows (no node layout) get no family grades.
TEST(FamilyGrades, OneLevelRowsHaveNone) {
  Analysis a;
  EXPECT_TRUE(family_grades(a).empty());
}

}  // namespace
}  // namespace cb::models
