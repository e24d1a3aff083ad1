// Per-configuration fit T(n) = a + b*n over the measured sizes of one
// (transport, collective, algorithm, datatype, op, placement, ranks): a is the
// effective latency (s), 1/b the effective bandwidth (B/s). Robust and
// relatively weighted (robust_fit.hpp), with percentile bootstrap intervals.
#pragma once

#include <cstdint>
#include <vector>

#include "models/robust_fit.hpp"

namespace cb::models {

struct LineFit {
  double a_s = 0, a_lo_s = 0, a_hi_s = 0;                      // intercept, seconds
  double b_s_per_B = 0, b_lo_s_per_B = 0, b_hi_s_per_B = 0;    // slope, seconds per byte
  double r_squared = 0;        // relative_r_squared of the robust fit
  std::size_t points = 0;
  std::vector<double> rel_residuals;  // per point, in input order
};

// bytes[i] >= 0 and seconds[i] > 0; at least 2 distinct sizes.
LineFit fit_line(const std::vector<double>& bytes, const std::vector<double>& seconds,
                 int resamples, std::uint64_t seed, const RobustOptions& opt = {});

}  // namespace cb::models
