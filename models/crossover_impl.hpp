// Template definitions of crossover.hpp.
#pragma once

#include <algorithm>
#include <cmath>

namespace cb::models {

template <class Fa, class Fb>
std::vector<PredictedCrossing> grid_crossings(Fa ta, Fb tb, std::uint64_t min_count,
                                              std::uint64_t max_count) {
  const auto winner = [&](std::uint64_t c) {
    const double a = ta(c), b = tb(c);
    if (std::fabs(a - b) <= 1e-12 * std::max(a, b)) return 0;
    return a < b ? 1 : -1;
  };
  std::vector<PredictedCrossing> out;
  std::uint64_t c = std::max<std::uint64_t>(min_count, 1);
  int last = winner(c);
  std::uint64_t last_at = c;
  while (c < max_count) {
    std::uint64_t next = c < 64 ? c + 1 : static_cast<std::uint64_t>(c * 1.0905077326652577);
    next = std::min(std::max(next, c + 1), max_count);
    const int w = winner(next);
    if (w != 0 && last != 0 && w != last) {
      std::uint64_t lo = last_at, hi = next;
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (winner(mid) == w)
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

}  // namespace cb::models
