#include "models/crossover.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/check.hpp"

namespace cb::models {

namespace {

// +1: a faster, -1: b faster, 0: tied.
int winner(const AlgorithmEntry& a, const AlgorithmEntry& b, const Scenario& s,
           const ModelParams& m, std::uint64_t count) {
  const double ta = predict_seconds(a, s, count, m);
  const double tb = predict_seconds(b, s, count, m);
  if (std::fabs(ta - tb) <= 1e-12 * std::max(ta, tb)) return 0;
  return ta < tb ? 1 : -1;
}

}  // namespace

std::vector<PredictedCrossing> predicted_crossings(const AlgorithmEntry& a, const AlgorithmEntry& b,
                                                   const Scenario& s, const ModelParams& m,
                                                   std::uint64_t min_count,
                                                   std::uint64_t max_count) {
  constexpr std::uint64_t kExhaustive = 4096;
  std::vector<PredictedCrossing> out;
  std::uint64_t c = std::max<std::uint64_t>(min_count, 1);
  int last = winner(a, b, s, m, c);
  std::uint64_t last_at = c;  // a count where `last` held (or the start while tied)
  while (c < max_count) {
    std::uint64_t next = c + 1;
    if (c >= kExhaustive) next = std::max(next, static_cast<std::uint64_t>(c * 1.0442737824274138));
    next = std::min(next, max_count);
    const int w = winner(a, b, s, m, next);
    if (w != 0 && last != 0 && w != last) {
      // Bisect in (last_at, next]: the first count where w holds.
      std::uint64_t lo = last_at, hi = next;
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (winner(a, b, s, m, mid) == w)
          hi = mid;
        else
          lo = mid;
      }
      out.push_back({hi, w > 0});
    }
    if (w != 0) {
      last = w;
      last_at = next;
    }
    c = next;
  }
  return out;
}

std::vector<MeasuredCrossing> measured_crossings(const std::vector<double>& bytes,
                                                 const std::vector<double>& t_a,
                                                 const std::vector<double>& t_b) {
  CB_CHECK(bytes.size() == t_a.size() && bytes.size() == t_b.size(), "ragged series");
  std::vector<MeasuredCrossing> out;
  std::size_t prev = bytes.size();  // index of the last untied size
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double d = std::log(t_a[i] / t_b[i]);
    if (d == 0) continue;
    if (prev < bytes.size()) {
      const double dp = std::log(t_a[prev] / t_b[prev]);
      if ((dp < 0) != (d < 0)) {
        const double x0 = std::log(bytes[prev]), x1 = std::log(bytes[i]);
        out.push_back({std::exp(x0 + dp / (dp - d) * (x1 - x0)), d < 0});
      }
    }
    prev = i;
  }
  return out;
}

}  // namespace cb::models
