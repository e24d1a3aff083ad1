// over-pairs.csv of a model spread directory (scripts/model_spread.sh's
// DIR/pair-N/fit/accuracy.csv): each figure's median over the pairs judged
// against the fit's target, in C++, so that model_spread_summary.py and
// report.py only show the verdicts (`collbench report` writes it for each
// spread-T/ of a study, `collbench report --spread DIR` for one spread).
// Columns level, figure, pairs, median, min, max, target, bound, met, role; one row
// per level (accuracy.csv's params, scope all) and figure:
//   figure  median_abs_err_large, median_abs_err_small, worst_collective
//           (its median |err|), picks (picks_right / picks of each pair),
//           median_regret; values and target are fractions (0.2 = 20%) with
//           full precision.
//   pairs   how many pairs have the level (a level with term probe needs a
//           calibration with the probe, so some pairs may lack it).
//   bound   at_most (the errors, regret) or at_least (picks): the direction
//           of the target; met = 1 when the median over the pairs meets it.
//   role    why the summaries show the level, "" where they do not:
//           "baseline" (calibration, the alpha-beta-gamma terms alone),
//           "asked" (the level asked for; by default the richest calibration
//           level without term probe: the most terms, a tie to the first),
//           "asked+probe" (the asked level with term probe, the mode probe).
// Levels appear in pair 1's order, then any other pair's new ones.
#pragma once

#include <string>

namespace cb::models {

// over-pairs.csv's text for the spread directory `dir` (pair-1, pair-2, ...
// up to the first missing pair-N/fit/accuracy.csv), `asked` the level of role
// "asked" ("": the default above); UsageError naming the file for no pair, a
// malformed accuracy.csv or one without targets, or naming an asked level no
// pair has.
std::string spread_judge_csv(const std::string& dir, const std::string& asked = {});

}  // namespace cb::models
