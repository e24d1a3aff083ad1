// Crossovers between two algorithms of a collective: the message sizes where
// the faster of the two changes.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/registry.hpp"
#include "models/model_params.hpp"
#include "models/predict.hpp"

namespace cb::models {

struct PredictedCrossing {
  std::uint64_t count = 0;  // first count at which the new winner is faster
  bool a_faster_after = false;
};

// Every count c in (min_count, max_count] where the predicted faster of a and
// b differs from the faster at the previous count where they were not tied
// (ties within 1e-12 relative keep the previous winner). Exact (every count)
// up to 4096 elements, then a 2^(1/16) geometric grid refined by bisection:
// above 4096, crossings closer than one grid step (costs within a rounding
// of each other, flipping with the parity of the count) merge into one.
std::vector<PredictedCrossing> predicted_crossings(const AlgorithmEntry& a, const AlgorithmEntry& b,
                                                   const Scenario& s, const ModelParams& m,
                                                   std::uint64_t min_count,
                                                   std::uint64_t max_count);

struct MeasuredCrossing {
  double bytes = 0;  // interpolated linearly in log(size) on log(t_a / t_b)
  bool a_faster_after = false;
};

// bytes ascending (distinct), both times > 0 at each size.
std::vector<MeasuredCrossing> measured_crossings(const std::vector<double>& bytes,
                                                 const std::vector<double>& t_a,
                                                 const std::vector<double>& t_b);

}  // namespace cb::models
