// Predicted wall time of each case of a run: the weights of the progress
// ETA (eta.hpp). Measured transports: an alpha-beta-gamma prediction of one
// iteration times the samples the sampling plan will take (-n, or the time
// budget clamped to [min, max] iterations) plus setup and verification;
// in-process transports predict their own (TransportSpec::predict_wall_s).
// Only the ratios between cases matter.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "harness/sweep/plan.hpp"

namespace cb {

// One iteration of case c on a generic cluster (5 us, 5 GB/s, 10 GB/s
// reduce), seconds.
double predicted_iteration_s(const Case& c);

// Wall seconds case c will take under `sampling` on a measured transport.
double predicted_measured_case_s(const Case& c, const SamplingPlan& sampling);

// The weights of the cases still to run (those not in `done`), in run order.
std::vector<double> predicted_work(const Plan& plan, const std::unordered_set<std::string>& done);

}  // namespace cb
