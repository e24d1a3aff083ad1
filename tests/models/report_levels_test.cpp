// The testbed report's columns (models/report_levels.hpp): the baseline,
// the richest level priced step by step and, last and main, the richest
// with per-rank clocks; and the plots' levels. Only levels that predicted rows.
#include "models/report_levels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/analysis.hpp"
#include "models/terms.hpp"

namespace cb::models {
namespace {

void level(Analysis& a, TermSet terms, bool predicted = true) {
  const std::string label = calibration_label(terms);
  if (!terms.empty()) a.level_terms[label] = terms;
  if (predicted) a.predictions.push_back({nullptr, label, 1e-3, 0.1, NAN});
}

TEST(ReportLevels, BaselineRichestStepAndRichestClockedLast) {
  Analysis a;
  a.predictions.push_back({nullptr, kByGlobal, 1e-3, 0.1, NAN});  // in sample: never a column
  level(a, {});
  level(a, {Term::range});
  level(a, {Term::range, Term::copy});
  level(a, {Term::range, Term::copy, Term::flight});
  level(a, {Term::range, Term::copy, Term::flight, Term::probe});
  // Richer still, but it predicted no row: not shown.
  level(a, {Term::range, Term::copy, Term::concurrency}, false);
  EXPECT_EQ(report_levels_csv(a),
            "column,role,params,main\n"
            "1,baseline,calibration,0\n"
            "2,step,calibration+range+copy,0\n"
            "3,clocked,calibration+range+copy+flight+probe,1\n");
}

TEST(ReportLevels, WithoutFlightTheStepLevelIsMainAndWithoutCalibrationNone) {
  Analysis a;
  level(a, {});
  level(a, {Term::range, Term::copy});
  level(a, {Term::range});
  ASSERT_EQ(report_levels(a).size(), 2u);
  EXPECT_EQ(report_levels(a).back().params, "calibration+range+copy");
  EXPECT_EQ(report_levels(a).back().role, "step");

  Analysis none;
  none.predictions.push_back({nullptr, kByGlobal, 1e-3, 0.1, NAN});
  EXPECT_TRUE(report_levels(none).empty());
  EXPECT_EQ(report_levels_csv(none), "column,role,params,main\n");
}

// The plots' levels (shown_levels): the in-sample fit, the baseline and the
// level with the most terms, step or clocked, among those that predicted rows.
TEST(ShownLevels, GlobalBaselineAndTheRichestThatPredicted) {
  Analysis a;
  a.predictions.push_back({nullptr, kByGlobal, 1e-3, 0.1, NAN});
  level(a, {});
  level(a, {Term::range, Term::copy, Term::flight});
  level(a, {Term::range, Term::copy, Term::concurrency, Term::probe});
  level(a, {Term::range, Term::copy, Term::concurrency, Term::probe, Term::flight}, false);
  EXPECT_EQ(shown_levels(a),
            (std::vector<std::string>{
                "global", "calibration",
                calibration_label({Term::range, Term::copy, Term::concurrency, Term::probe})}));
}

TEST(ShownLevels, ATieGoesToTheFirstLabelAndNoFitShowsNone) {
  Analysis a;
  level(a, {Term::range, Term::flight});
  level(a, {Term::range, Term::copy});
  const std::string first = std::min(calibration_label({Term::range, Term::flight}),
                                     calibration_label({Term::range, Term::copy}));
  EXPECT_EQ(shown_levels(a), std::vector<std::string>{first});
  EXPECT_TRUE(shown_levels(Analysis{}).empty());
}

}  // namespace
}  // namespace cb::models
