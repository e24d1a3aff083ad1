// checks.csv of a study directory: how far the machine that measured can be
// trusted, judged in C++ so that scripts/report.py only shows the verdicts
// (`collbench report DIR` writes it before report.py renders report.md).
// Columns kind, transport, quantity, before, after, ratio, median, max,
// ranks, flag, limit; numbers with full precision:
//   kind=calibration  one row per quantity of each calibration taken before
//                     and after the sweeps (calibration.csv and
//                     calibration-after.csv; calibration-ipc.csv and
//                     calibration-ipc-after.csv): transport (the before
//                     file's), quantity alpha_us (α in µs), bandwidth_GBps
//                     (1/β) or reduce_bandwidth_GBps (1/γ; inf for a
//                     parameter <= 0), before, after, ratio = after / before
//                     (empty unless before is finite and > 0), flag = 1 when
//                     it moved: the ratio outside [1 / kCalibrationMoved,
//                     kCalibrationMoved] or empty; limit =
//                     kCalibrationMoved (the report states it, never a copy).
//   kind=load         one row per load column of the measured sweeps
//                     (sweep-*.csv, else every results CSV of DIR; simulated
//                     rows left out) that has a value: quantity load_avg_1m
//                     or procs_running, median, max over the rows, ranks =
//                     the most ranks of any measured row; flag (load_avg_1m
//                     only) = 1 when the median load exceeds those ranks: the
//                     machine was busy with other work.
#pragma once

#include <string>

namespace cb::models {

// The largest factor by which a calibrated quantity may move within a study
// before out-of-sample errors say more about the machine than the model.
inline constexpr double kCalibrationMoved = 1.25;

// checks.csv's text for the study directory `dir`; UsageError naming the file
// for an unreadable or malformed input.
std::string study_checks_csv(const std::string& dir);

}  // namespace cb::models
