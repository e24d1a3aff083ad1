// Summaries of per-repeat ratios for the benchmarks here: median and
// quartiles (the spread over repeats), nearest-rank on the sorted values.
#pragma once

#include <algorithm>
#include <vector>

struct Spread {
  double median = 0, p25 = 0, p75 = 0, min = 0, max = 0;
};

inline Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) {
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
  };
  s.median = at(0.5);
  s.p25 = at(0.25);
  s.p75 = at(0.75);
  s.min = v.front();
  s.max = v.back();
  return s;
}
