// The timing method (stated in USAGE.md):
//  - plan.warmup untimed runs, each after a barrier;
//  - plan.start == barrier: every timed sample starts after a barrier, each
//    rank times its own run() with steady_clock, and the sample is the max
//    over ranks (reduced to rank 0 in batches, so no reduction sits between
//    samples);
//  - plan.start == window: clocks are synchronized (clock_sync.hpp) before
//    the first batch on a group of a new size, and again once a second (or
//    20 times the last synchronization's duration) has passed, across
//    configurations; rank 0 gives each batch
//    a start time and a window length; sample i of the batch starts on every
//    rank at start + i * window (rank 0's clock, moved to each rank's by its
//    offset); each rank records own finish - that start, and the sample is
//    the max over ranks. Samples in which a rank reached the wait after the
//    window opened are dropped and counted (a batch with such a sample
//    doubles the margins of the next), and so are samples in which a rank
//    that spun its wait started late all the same (window_wait.hpp);
//  - plan.start == back_to_back: one barrier per batch (of at least
//    kBackToBackMinBatch), then the batch's runs back to back on each rank;
//    each rank records its cumulative finish times, and sample i is the max
//    over ranks of finish i minus the max of finish i - 1 (measure.hpp);
//  - fixed count (plan.iterations > 0), or adaptive: batches that double in
//    size until the median's nonparametric 95% CI lies within plan.ci_rel of
//    the median (and at least min_iterations), or plan.budget_s of wall time
//    is spent, or max_iterations is reached; rank 0 decides and broadcasts;
//  - plan.arrival (window start only): sample i starts on rank r at the
//    agreed start + that rank's delay of iteration i (arrival.hpp); each
//    rank records own finish - the agreed start, and rank 0 turns every
//    rank's into the sample's step time (first arrival to last completion,
//    times_s), time after the last arrival and early ranks' time held. The
//    same operations are also sampled without the pattern, taking turns with
//    it, for the no-skew reference (noskew_s);
//  - batches last at most ~0.5 s (~20 ms interleaved), and between batches (and before each
//    warm-up run) the ranks agree on a pending signal (interrupt.hpp).
#pragma once

#include <span>
#include <vector>

#include "harness/runtime/group.hpp"
#include "transports/contract/measure.hpp"

namespace cb {

struct TimedSamples {
  // Per-sample times in SECONDS (max over ranks) on rank 0; empty elsewhere.
  std::vector<double> times_s;
  // Window start, rank 0: samples dropped because a rank was late for its
  // window (when every sample was late they are kept in times_s instead).
  int late = 0;
  // A signal stopped sampling (every rank agrees; the samples are dropped).
  bool interrupted = false;
  // Under plan.arrival, rank 0: per kept sample (SECONDS) the time from the
  // last arrival to the last completion, the early ranks' mean time held
  // (empty when every rank arrives at once), and the no-skew samples.
  std::vector<double> after_last_s, early_in_s, noskew_s;
  // Window start, rank 0: the largest clock-sync accuracy bound (half the
  // largest kept round trip) of the synchronizations the samples used, SECONDS.
  double clock_sync_s = 0;
};

// Collective over `group`.
TimedSamples time_samples(Operation& op, Group& group, const SamplingPlan& plan);

// Interleaved timing (--order interleaved): the operations take turns on
// `group`, one batch of at most ~20 ms each per turn, until each has its
// samples by `plan`; each gets its own warm-up on its first turn and its own
// time budget (the time spent in its turns). A drift of the machine's speed
// during the measurement then reaches every operation alike instead of
// deciding which one looks fastest. Collective over `group`; the result's
// i-th entry belongs to ops[i]; on a signal every entry is interrupted.
std::vector<TimedSamples> time_interleaved(std::span<Operation* const> ops, Group& group,
                                           const SamplingPlan& plan);

// The same, times only (late samples, if any, are dropped silently).
std::vector<double> time_samples(Operation& op, Group& group, const SamplingPlan& plan,
                                 bool& interrupted);

}  // namespace cb
