// probes.csv of a model spread directory (scripts/model_spread.sh): each
// pair's mode probe (models/mode_probe.hpp) as its calibration and its sweep
// measured it, so that model_spread_summary.py only shows the figures.
// Columns pair, calibration_small_us, calibration_large_us, sweep_rows,
// then for the sweep's probes over its rows that hold them the median, min
// and max of each: sweep_small_{median,min,max}_us, sweep_large_{median,min,
// max}_us. Microseconds per exchange step (small: 8 B, large: 256 KiB), full
// precision. A pair whose calibration has no probe or whose sweep has no row
// with one has every cell after `pair` empty ("no probe").
#pragma once

#include <string>

namespace cb::models {

// probes.csv's text for the spread directory `dir` (pair-1, pair-2, ... up to
// the first missing pair-N/fit/accuracy.csv, as spread_judge_csv counts them,
// each with calibration.csv and sweep.csv); UsageError naming the file for a
// missing or malformed one.
std::string spread_probes_csv(const std::string& dir);

}  // namespace cb::models
