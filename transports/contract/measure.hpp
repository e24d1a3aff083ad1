// What one measurement is, independent of where its times come from.
//
// A Measurer turns one Case into per-iteration times. Per-process transports
// (mpi, ipc) measure with real clocks through ProcessMeasurer
// (process_measurer.hpp); in-process transports (the simulator) compute the
// times of all ranks at once and implement Measurer themselves. The runner
// and the reporters only ever see Measurements, so they treat both alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/types.hpp"
#include "transports/contract/transport.hpp"

namespace cb {

class Group;
class ArrivalPattern;

// One configuration: a row of the results.
struct Case {
  std::string transport;  // CSV transport value: "mpi", "ipc-host", "sim", ...
  Collective coll = Collective::allreduce;
  std::string algorithm;  // registry name or a library baseline ("mpi", "nccl")
  DataType dtype = DataType::fp32;
  ReduceOp op = ReduceOp::sum;  // meaningless (and empty in CSV) for allgather/alltoall
  bool in_place = false;
  int ranks = 1;
  std::size_t count = 0;          // elements, the MPI meaning (Schedule::count)
  std::size_t segment_bytes = 0;  // pipelining segment, 0 = algorithm default
  // Node layout of the case's ranks (CollParams::ranks_per_node): K
  // consecutive ranks per node, 0 = one node, -1 = irregular (the runtime's
  // nodes are not K consecutive ranks each; hierarchical algorithms refuse).
  int ranks_per_node = 0;

  // S as nccl-tests and CSV.md define it: allreduce count*elem, the others
  // count*elem*ranks. Bytes.
  std::size_t bytes() const;
};

// How a timed sample starts (USAGE.md, Timing method).
//  - barrier: after a barrier; each rank times from its own barrier exit. A
//    barrier does not release ranks together: one may leave up to a one-way
//    latency after another, and a sample then also holds that skew.
//  - window: clocks are synchronized to rank 0's (clock_sync.hpp), and every
//    rank starts each sample at an agreed time in the near future; a sample
//    is the max over ranks of (own finish - agreed start). A sample in which
//    a rank reached the wait after its window had opened is dropped and
//    counted (Measurement::late).
//  - back_to_back: what an application's loop (and OSU's) sees: one barrier
//    per batch, then the batch's iterations run back to back, each rank
//    starting the next as soon as its own previous one returned. Each rank
//    records its cumulative finish times since its barrier exit; sample i is
//    the max over ranks of finish i minus that of finish i - 1, so the
//    samples of a batch add up to the slowest rank's whole loop. A
//    collective that leaves ranks skewed (some finish a round later) pays
//    that skew in the next iteration, as a loop does.
enum class StartMethod { barrier, window, back_to_back };

// Back-to-back batches hold at least this many iterations (fewer only when
// -n asks for fewer), so a loop runs even where a batch of one would fit the
// interleaved order's ~20 ms.
inline constexpr int kBackToBackMinBatch = 8;

// How many samples to take and whether to verify.
struct SamplingPlan {
  StartMethod start = StartMethod::barrier;  // --start
  int warmup = 1;           // untimed runs before sampling
  int iterations = 0;       // > 0: exactly this many timed samples (-n)
  double budget_s = 0.25;   // iterations == 0: wall-clock budget per case (--time-budget)
  double ci_rel = 0.05;     // iterations == 0: stop once the median's 95% CI lies within this
  int min_iterations = 10;  // iterations == 0: never fewer (the CI needs n > 5)
  int max_iterations = 100000;
  bool verify = true;      // -c
  bool mode_probe = true;  // --mode-probe: probe each configuration's group first (mode_probe.hpp)
  std::uint64_t seed = 1;  // verification data seed; the runner changes it per case
  // --arrival (arrival.hpp): when each rank enters each timed sample; null or
  // inactive = all at once. Needs StartMethod::window on measured transports.
  std::shared_ptr<const ArrivalPattern> arrival;
  // --arrival-log PREFIX: each rank appends its samples' target and actual
  // start times to PREFIX.<rank> (timing.hpp); empty = none.
  std::string arrival_log;
};

// Under an arrival pattern, per-iteration times in SECONDS (arrival.hpp's
// ArrivalTimes; the step times, first arrival to last completion, are
// Measurement::times_s), and the same configuration's no-skew samples from
// the same run.
struct ArrivalSamples {
  std::string pattern;                // ArrivalPattern::text()
  std::vector<double> after_last_s;   // last arrival to last completion
  std::vector<double> early_in_s;     // early ranks' mean time held (empty: none arrived early)
  std::vector<double> noskew_s;       // the configuration without the pattern
};

struct Measurement {
  // Per-iteration times in SECONDS, each the max over ranks; valid where the
  // measurer says (ProcessMeasurer: group rank 0).
  std::vector<double> times_s;
  // Wrong elements summed over ranks; nullopt when not verified.
  std::optional<std::uint64_t> wrong;
  bool oversubscribed = false;
  // A signal stopped the measurement part-way (every rank agrees): no row.
  bool interrupted = false;
  // The resolved policy ranks waited with; none for computed (simulated) times.
  std::optional<WaitPolicy> wait;
  // How samples started; none for computed (simulated) times.
  std::optional<StartMethod> start;
  // Window start only: samples dropped because a rank reached the wait after
  // its window had opened (not in times_s, unless every sample was late: then
  // they are all kept, so the row still has times, and late == their count).
  std::optional<int> late;
  // Model parameters of simulated rows (CSV alpha_s, beta_s_per_B, gamma_s_per_B).
  std::optional<double> alpha_s, beta_s_per_B, gamma_s_per_B;
  // Message events a simulated case took (the map's events column).
  std::optional<std::uint64_t> events;
  // Why the case has no times (a measurer that skips cases over its limits).
  std::string skipped;
  // The mode probe taken right before the timing (mode_probe.hpp), seconds
  // per exchange step at 8 B and 256 KiB; none when not taken.
  std::optional<double> probe_small_s, probe_large_s;
  // --arrival: the pattern's times (nullopt without a pattern).
  std::optional<ArrivalSamples> arrival;
  // Window start: the clock synchronization's accuracy bound, SECONDS: half
  // the largest round trip of the exchanges kept (the midpoint estimate of
  // an offset is off by at most that); nullopt for other starts.
  std::optional<double> clock_sync_s;
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  // Per-process measurers: called on every rank of `group` (case.ranks ranks).
  // In-process measurers: called on world rank 0 only, with a one-rank group.
  virtual Measurement measure(const Case& c, const SamplingPlan& plan, Group& group) = 0;
  // Cases that differ only in algorithm, timed taking turns so that a drift
  // of the machine's speed reaches them alike (--order interleaved,
  // time_interleaved in timing.hpp); plans[i] is cases[i]'s (they differ in
  // the seed only). Called like measure(). This default measures them one
  // after another, which is exact where times are computed (the simulator).
  virtual std::vector<Measurement> measure_interleaved(std::span<const Case> cases,
                                                       std::span<const SamplingPlan> plans,
                                                       Group& group);
};

}  // namespace cb
