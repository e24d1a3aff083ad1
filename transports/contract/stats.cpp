#include "transports/contract/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace cb {

Stats summarize(std::span<const double> samples) {
  Stats s;
  s.n = samples.size();
  if (s.n == 0) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = s.n;
  s.min = v.front();
  s.max = v.back();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  const auto p95_rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n)));
  s.p95 = v[std::clamp<std::size_t>(p95_rank, 1, n) - 1];
  if (n <= 5) {
    s.ci_lo = s.min;
    s.ci_hi = s.max;
  } else {
    const double dn = static_cast<double>(n);
    const double half = 1.96 * std::sqrt(dn);
    const auto lo = static_cast<long>(std::floor((dn - half) / 2));
    const auto hi = static_cast<long>(std::ceil(1 + (dn + half) / 2));
    s.ci_lo = v[static_cast<std::size_t>(std::clamp<long>(lo, 1, static_cast<long>(n)) - 1)];
    s.ci_hi = v[static_cast<std::size_t>(std::clamp<long>(hi, 1, static_cast<long>(n)) - 1)];
  }
  return s;
}

bool ci_within(const Stats& s, double rel) {
  if (s.n <= 5) return false;
  const double tol = rel * s.median;
  return s.median - s.ci_lo <= tol && s.ci_hi - s.median <= tol;
}

}  // namespace cb
