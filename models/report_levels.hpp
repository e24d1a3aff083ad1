// Which calibration levels the testbed report shows, and in which order
// (scripts/testbed/report.py's columns; classify_crossovers.py shows the
// misses of the last one), and which levels the plots show. The rules live
// here, once: `collbench fit --network` writes the first to
// report-levels.csv, every fit the second to summary.csv, and the scripts
// only read them.
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

// The levels the plots show, in their order (scripts/plot.py's model-error
// and crossover panels): the in-sample global fit, the alpha-beta-gamma
// baseline and the richest calibrated level (the most terms, a tie to the
// first label; report.md's ablation table has every level), each only when
// it predicted rows. summary.csv's shown_level rows.
std::vector<std::string> shown_levels(const Analysis& a);

// report-levels.csv: column (1, 2, ...: the report's order), role, params,
// main (1 on the last column, else 0). A header alone without a calibration.
std::string report_levels_csv(const Analysis& a);

}  // namespace cb::models
