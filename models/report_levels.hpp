// Which calibration levels the testbed report shows, and in which order
// (scripts/testbed/report.py's columns; classify_crossovers.py shows the
// misses of the last one). The rule lives here, once: `collbench fit
// --network` writes it to report-levels.csv and the scripts only read it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/analysis.hpp"

namespace cb::models {

// One column of the report: a level (a Prediction::params value) and why it
// is shown.
struct ReportLevel {
  std::string params;
  // "baseline": the alpha-beta-gamma calibration; "step": the richest level
  // priced step by step (each round takes its slowest rank, no term
  // flight); "clocked": the richest level with per-rank clocks (flight).
  std::string_view role;
};

// In the report's order: the baseline when the calibration predicted rows,
// the "step" level, the "clocked" level; each present only when a level of
// its kind is (a.level_terms). "Richest" is the level with the most terms
// (the ablation's levels are cumulative; a tie goes to the first label).
// The last is the main calibrated column.
std::vector<ReportLevel> report_levels(const Analysis& a);

// report-levels.csv: column (1, 2, ...: the report's order), role, params,
// main (1 on the last column, else 0). A header alone without a calibration.
std::string report_levels_csv(const Analysis& a);

}  // namespace cb::models
