// Summary statistics of timing samples (harness/USAGE.md, "Timing method").
#pragma once

#include <cstddef>
#include <span>

namespace cb {

// All in the samples' unit.
struct Stats {
  std::size_t n = 0;
  double median = 0, min = 0, mean = 0, p95 = 0, max = 0;
  // Nonparametric 95% CI of the median: for n > 5 the order statistics at
  // 1-based ranks floor((n - 1.96 sqrt n) / 2) and ceil(1 + (n + 1.96 sqrt n) / 2),
  // clamped to [1, n]; for n <= 5, [min, max].
  double ci_lo = 0, ci_hi = 0;
};

// Median of even n: mean of the two middle samples. p95: nearest rank,
// the ceil(0.95 n)-th smallest. Empty input gives all zeros.
Stats summarize(std::span<const double> samples);

// Whether the CI lies within rel * median on both sides of the median.
bool ci_within(const Stats& s, double rel);

}  // namespace cb
