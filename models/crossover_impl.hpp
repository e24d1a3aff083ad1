// Template definitions of crossover.hpp.
#pragma once

#include <algorithm>
#include <cmath>

namespace cb::models {

// The walk both crossing searches share: from min_count to max_count in
// steps of step(c) (at least c + 1); where the winner (+1 a, -1 b, 0 tied)
// flips, bisect in (last count the old winner held, next] for the first
// count where the new one holds. Ties never end a run.
template <class Winner, class Step>
std::vector<PredictedCrossing> walk_crossings(Winner winner, std::uint64_t min_count,
                                              std::uint64_t max_count, Step step) {
  std::vector<PredictedCrossing> out;
  std::uint64_t c = std::max<std::uint64_t>(min_count, 1);
  int last = winner(c);
  std::uint64_t last_at = c;  // a count where `last` held (or the start while tied)
  while (c < max_count) {
    const std::uint64_t next = std::min(std::max(step(c), c + 1), max_count);
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

template <class Fa, class Fb>
std::vector<PredictedCrossing> grid_crossings(Fa ta, Fb tb, std::uint64_t min_count,
                                              std::uint64_t max_count) {
  const auto winner = [&](std::uint64_t c) {
    const double a = ta(c), b = tb(c);
    if (std::fabs(a - b) <= 1e-12 * std::max(a, b)) return 0;
    return a < b ? 1 : -1;
  };
  // Every count below 64, then ~1.09x steps.
  return walk_crossings(winner, min_count, max_count, [](std::uint64_t c) {
    return c < 64 ? c + 1 : static_cast<std::uint64_t>(c * 1.0905077326652577);
  });
}

}  // namespace cb::models
