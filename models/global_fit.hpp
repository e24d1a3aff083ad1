// The transport-wide fit: one (alpha, beta, gamma) for all schedule
// algorithms, collectives and rank counts of a transport, jointly, on the
// model's own basis: each measured row contributes
//     t = alpha*A + beta*B + gamma*C,
// (A, B, C) = closed_form_cost of its (collective, algorithm, p, count) --
// rounds, bytes and reduced bytes of the exact variant implemented.
// Non-negative, relatively weighted and robust (robust_fit.hpp), with
// percentile bootstrap intervals.
//
// Identification (algorithms/README.md, fitting notes): within one algorithm C/B is
// fixed, so beta and gamma are told apart by the collectives without a
// reduction (allgather, alltoall: C = 0) and by algorithms with different C/B
// ratios. A parameter whose column is zero in every row (e.g. gamma when only
// allgather was measured) is reported as not identified.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/model_params.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

struct GlobalFit {
  ModelParams params;  // the estimate
  ModelParams lo, hi;  // 95% bootstrap bounds
  std::array<bool, 3> identified{};  // alpha, beta, gamma
  double r_squared = 0;
  std::size_t points = 0;
  std::vector<double> rel_residuals;  // per input row
};

// basis[i] = the model cost of row i (not all zero), seconds[i] > 0 its time.
GlobalFit fit_global(const std::vector<Cost>& basis, const std::vector<double>& seconds,
                     int resamples, std::uint64_t seed, const RobustOptions& opt = {});

}  // namespace cb::models
