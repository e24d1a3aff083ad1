// The CSV files of `collbench fit`, as text (SI units throughout):
//
// fit.csv — one row per fitted scope:
//   scope: global (a transport's joint alpha, beta, gamma), calibration (the
//   calibration file's parameters, echoed, no intervals), config (one
//   configuration's line T = a + b*n: alpha_s = a, beta_s_per_B = b, gamma
//   empty) or segment (one piece of a configuration's piecewise fit, only when
//   knees were found; segment_first_B..segment_last_B gives its sizes).
//   Columns: scope, transport, collective, algorithm, datatype, op, placement,
//   ranks, alpha_s, alpha_s_lo, alpha_s_hi, beta_s_per_B, beta_s_per_B_lo,
//   beta_s_per_B_hi, gamma_s_per_B, gamma_s_per_B_lo, gamma_s_per_B_hi,
//   r_squared, points, knees_B (';'-separated), segment_first_B,
//   segment_last_B. Bounds are 95% percentile-bootstrap intervals; a parameter
//   the data cannot identify is left empty.
// predictions.csv — one row per measured row and parameter source:
//   transport, collective, algorithm, datatype, op, placement, ranks, bytes,
//   count, measured_s, predicted_s, rel_err = (predicted - measured)/measured,
//   params (global | calibration | config), lower_bound_s (the collective's
//   lower bound priced with the same parameters; empty for config).
// crossovers.csv — kind = pair: for two algorithms of a group, the first
//   predicted and measured crossover sizes (bytes, within the measured range;
//   empty if none), how many crossings each has and which algorithm is faster
//   below the first; kind = best: at one size, the predicted and measured best
//   algorithm (predicted ties joined by '|'), the measured times of both (of
//   the best of a tie) and regret = t(predicted best) / t(measured best) - 1. Columns: kind, params, transport, collective,
//   datatype, op, placement, ranks, algo_a, algo_b, predicted_crossover_B,
//   measured_crossover_B, predicted_crossings, measured_crossings,
//   predicted_faster_below, measured_faster_below, bytes, predicted_best,
//   measured_best, predicted_best_measured_s, measured_best_s, regret,
//   measured_crossover_lo_B, measured_crossover_hi_B (pair: the sizes the
//   first measured crossover lies between, where the old and the new winner
//   are significantly faster; its interval given the measurements' CIs),
//   crossover_ratio (pair: max(predicted / measured, measured / predicted) of
//   the first crossings, empty unless both exist), and from `fit --network`
//   only (link_grades.hpp; empty otherwise): cpu_limited (1 when the first
//   measured crossing, or for best the size, is left out of the link-limited
//   scope), verdict (pair in that scope: within, below, above or none against
//   the crossover target) and within_interval (1 when within the factor or
//   inside the measured crossing's interval), and sizes, picks_right and
//   median_regret (kind = best_group only: per params and group, its sizes,
//   how many the model picked right (BestAtSize::model_right) and the median
//   regret; bytes, predicted_best, measured_best and regret are its worst
//   size's).
#pragma once

#include <string>

#include "models/analysis.hpp"

namespace cb::models {

std::string fit_csv(const Analysis& a);
std::string predictions_csv(const Analysis& a);
std::string crossovers_csv(const Analysis& a);
// One row per (params, transport, scope) of Analysis::grades: the figures,
// the targets of their scope (targets.hpp) and whether each is met (met_*:
// 1, 0, or empty without a value or a target), which the reports only show
// (harness/report/CSV.md lists the columns).
std::string accuracy_csv(const Analysis& a);
// errors.csv: the model's error per (params, transport, collective,
// algorithm) over every row, and per (params (config left out),
// transport) over every algorithm (collective and algorithm empty): rows and
// median |rel_err| at >= kLargeBytes with the worst, the median signed
// rel_err in [kLargeBytes, kMidBandTopBytes] and at >= kTopBandBytes, rows and
// median |rel_err| below kLargeBytes; the band edges in bytes on every row;
// then over every size rows_all, median_abs_err_all and the worst signed
// rel_err (largest |rel_err|, the first of equals) with its bytes and ranks.
// Params config gets per-algorithm rows only. Medians are empty where a band
// has no rows.
std::string errors_csv(const Analysis& a);

}  // namespace cb::models
