// The timing method (stated in USAGE.md):
//  - plan.warmup untimed runs, each after a barrier;
//  - every timed sample starts after a barrier, each rank times its own
//    run() with steady_clock, and the sample is the max over ranks (reduced
//    to rank 0 in batches, so no reduction sits between samples);
//  - fixed count (plan.iterations > 0), or adaptive: batches that double in
//    size until the median's nonparametric 95% CI lies within plan.ci_rel of
//    the median (and at least min_iterations), or plan.budget_s of wall time
//    is spent, or max_iterations is reached; rank 0 decides and broadcasts;
//  - batches last at most ~0.5 s, and between batches (and before each
//    warm-up run) the ranks agree on a pending signal (interrupt.hpp).
#pragma once

#include <vector>

#include "harness/runtime/group.hpp"
#include "harness/sweep/measure.hpp"

namespace cb {

// Collective over `group`. Returns the per-sample times in seconds on rank 0
// (max over ranks); an empty vector elsewhere. `interrupted`: a signal
// stopped sampling (every rank agrees; the samples are dropped).
std::vector<double> time_samples(Operation& op, Group& group, const SamplingPlan& plan,
                                 bool& interrupted);

}  // namespace cb
