// Robust, relatively weighted linear fits and their bootstrap intervals.
//
// Measured times span 8 B to hundreds of MiB, i.e. 1 us to 100 ms: an
// unweighted fit would only see the largest sizes. Every fit here therefore
// minimises a loss of the RELATIVE residual r_i = (x_i.theta - y_i) / y_i, and
// uses Huber's loss via iteratively reweighted least squares so that a single
// noisy point (a preempted run) does not move the line.
#pragma once

#include <cstdint>
#include <vector>

namespace cb::models {

struct RobustOptions {
  double huber_c = 1.345;  // in units of the residual scale (95% efficiency)
  // Lower bound on the residual scale (relative error), so exact data does
  // not turn every tiny rounding residual into an "outlier".
  double scale_floor = 1e-3;
  int max_iterations = 50;
  bool non_negative = true;  // physical parameters (latency, s/B) are >= 0
  // Above this many rows the bootstrap draws this many per resample (the
  // m-out-of-n bootstrap) and widens the interval back by sqrt(draws / rows):
  // a million-row fit then costs its resamples x 10,000 rows, not x 10^6.
  std::size_t bootstrap_max_rows = 10000;
  // Threads fitting the bootstrap's resamples (drawn one after another from
  // the seed first, so the interval does not depend on it). 1 where the
  // caller already runs fits on every core (per-configuration lines).
  unsigned bootstrap_threads = 1;
};

struct RobustFit {
  std::vector<double> theta;          // one per basis column; 0 if unidentified
  std::vector<bool> identified;       // false when the column is all zero in the data
  std::vector<double> rel_residuals;  // (predicted - measured) / measured, per row
  std::vector<double> weights;        // final Huber weights in [0, 1]
  double scale = 0;                   // robust scale (1.4826 * MAD) of the residuals
};

// basis[i] = the row's basis coefficients (all rows the same length k),
// y[i] > 0 the measured time.
RobustFit fit_relative_huber(const std::vector<std::vector<double>>& basis,
                             const std::vector<double>& y, const RobustOptions& opt = {});

// Percentile bootstrap (case resampling): refits on `resamples` resampled row
// sets drawn with a std::mt19937_64 seeded by `seed`, and returns the 2.5% and
// 97.5% quantiles of each parameter (lo[j], hi[j]). Resamples for which
// `usable` is false (e.g. fewer than 2 distinct sizes) are redrawn. With more
// than opt.bootstrap_max_rows rows, each resample has that many rows and the
// quantiles' distances from the draws' median shrink by sqrt(draws / rows)
// (the estimators here converge at the 1/sqrt(n) rate).
struct Interval {
  std::vector<double> lo;
  std::vector<double> hi;
};
Interval bootstrap_relative_huber(const std::vector<std::vector<double>>& basis,
                                  const std::vector<double>& y, const RobustOptions& opt,
                                  int resamples, std::uint64_t seed);

// Weighted coefficient of determination on the relative scale:
// 1 - sum r_i^2 / sum ((y_i - ybar)/y_i)^2, ybar the mean under weights 1/y_i^2.
double relative_r_squared(const std::vector<double>& y, const std::vector<double>& rel_residuals);

// Median of a copy of v (NaN for an empty vector).
double median(std::vector<double> v);

}  // namespace cb::models
