// The simulated network transport: runs the schedules of all p ranks in
// virtual time, deterministically, in one process (no MPI, p up to kMaxRanks).
//
// The model (see transports/sim/README.md for the discussion):
//  - A message of n bytes costs alpha + n*beta (intra-node parameters with
//    NetworkParams::ranks_per_node) on the sender's outgoing port AND on the
//    receiver's incoming port; each rank has one full-duplex port: its sends
//    of a step are served one after another in list order, its receives one
//    after another in the order they become enabled (ties: list order).
//  - With nodes of K >= 2 ranks (NetworkParams::ranks_per_node), a message
//    between nodes also crosses its sender node's egress link and its
//    receiver node's ingress link, which the node's ranks share: per step,
//    the rule of models/node_links.hpp (processor sharing from when the
//    message is enabled; delivered no earlier than alpha after both links
//    carried it), the one models::level_seconds walks with.
//  - A message enters the sender's port once the sender has reached its step
//    (and its CPU posted it, with overhead o); the receiver's port serves it
//    once the receiver has reached that step too, i.e. ports only ever work
//    on their rank's current step. It is delivered when both ports are done.
//  - A rank's step ends when all its messages (both directions) are
//    delivered; then its reduce-receives and local reductions cost
//    bytes*gamma, then (with noise) a random idle time. Local copies and the
//    avg division cost nothing, as in the cost convention.
//  - Time of the collective = max over ranks of (finish - the rank's own
//    start), the harness's convention of timing each rank and taking the max.
//
// Because ports serve only their rank's current step, every event of step s
// depends on step s-1 completions alone; the engine therefore evaluates events
// step by step (a topological order of the event graph) rather than popping
// them from one global priority queue. The times are exactly those of that
// discrete-event model; ties are broken by rank and list order, so results are
// bit-identical run to run.
//
// Relation to the cost model (Cost in algorithms/params.hpp): for alpha, beta,
// gamma and no refinement, simulated time <= alpha*A + beta*B + gamma*C of
// schedule_cost(). In round-synchronous mode it equals it exactly whenever, in
// every step, one rank attains the step's maximum message count and maximum
// bytes on the same port side and the maximum reduced bytes; the asynchronous
// default can be faster when different ranks are critical in consecutive
// steps without depending on each other (README lists which algorithms).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/check.hpp"
#include "algorithms/registry.hpp"
#include "transports/sim/fast_path.hpp"
#include "transports/sim/net_params.hpp"
#include "transports/sim/window.hpp"

namespace cb::sim {

struct SimOptions {
  // Global steps built and simulated at once; 0 = max(1, window_rank_steps / p),
  // which bounds memory whatever p is: about 16 bytes per (rank, step) plus 32
  // per message of the window, twice that while a window is being built.
  // A window over limits.max_messages is retried with half the steps.
  // Windows no longer replay schedules from step 0 (ScheduleBuilder::
  // for_steps), so small windows cost nothing extra and stay in cache: 2 Mi
  // rank-steps took ring all-reduce at p = 4096 from 4.1 to 2.5 CPU-s and
  // 1.5 GiB to 197 MiB RSS against 16 Mi.
  std::uint64_t window_steps = 0;
  std::uint64_t window_rank_steps = std::uint64_t{2} << 20;
  // simulate(algo, ...) returns the closed-form cost where it is provably
  // the simulated time (fast_path.hpp) instead of simulating every message;
  // false forces the discrete-event simulation (benchmarks, tests).
  bool fast_path = true;
  WindowLimits limits{std::uint64_t{1} << 25, 0};  // threads 0 = min(cores, 4)
  // An arrival pattern (--arrival, docs/arrival.md): rank r enters the
  // collective at arrival_s[r] SECONDS (p entries; excludes --sim-skew), and
  // the result holds every rank's finish. Empty: every rank at 0 (or the
  // skew's draws). A pattern always runs the discrete-event simulation.
  std::vector<double> arrival_s;
};

struct SimResult {
  double time_s = 0;            // simulated time of the collective, seconds
  bool from_cost = false;       // true: the exact fast path (closed form), no events
  std::uint64_t messages = 0;   // message events simulated
  std::uint64_t steps = 0;      // global steps
  std::uint64_t windows = 0;
  // With SimOptions::arrival_s: when each rank finished, SECONDS (same origin).
  std::vector<double> finish_s;
  double build_wall_s = 0;      // wall time generating schedules and matching
  double engine_wall_s = 0;     // wall time of the event evaluation
  double wall_s() const { return build_wall_s + engine_wall_s; }
  // End to end (generation included) and the engine alone.
  double events_per_s() const { return wall_s() > 0 ? static_cast<double>(messages) / wall_s() : 0; }
  double engine_events_per_s() const {
    return engine_wall_s > 0 ? static_cast<double>(messages) / engine_wall_s : 0;
  }
};

enum class WaitReason : std::uint8_t {
  no_matching_send,  // waits for a message the peer never sends in that step
  no_matching_recv,  // its send is never received by the peer in that step
  peer_stalled,      // the peer never reaches that step
};

struct Wait {
  int rank = 0;
  std::uint64_t step = 0;  // global step where the rank is stuck
  int peer = 0;            // the rank it waits on
  WaitReason why = WaitReason::peer_stalled;
  friend bool operator==(const Wait&, const Wait&) = default;
};

// A stalled schedule set: no event can fire while ranks are unfinished. what()
// names the first ranks and whom they wait on; waits has one entry per stuck
// rank, in rank order.
struct StallError : InternalError {
  StallError(std::string what, std::vector<Wait> w)
      : InternalError(std::move(what)), waits(std::move(w)) {}
  std::vector<Wait> waits;
};

// Simulates the p ranks whose schedules `source` yields. Throws StallError on
// a deadlock, UsageError when p is out of [1, kMaxRanks] or the parameters are
// invalid (validate()), InternalError for schedules that do not fit together.
SimResult simulate(int p, const ScheduleSource& source, const NetworkParams& net,
                   const SimOptions& options = {});

// The registry's schedules for params (params.rank is ignored); the closed
// form when options.fast_path and cost_is_exact() (fast_path.hpp).
SimResult simulate(const AlgorithmEntry& algo, const CollParams& params, const NetworkParams& net,
                   const SimOptions& options = {});

// As simulate(), and also moves real bytes along the simulated messages
// (reduction kernels included): inputs[r] is rank r's input view as bytes;
// the result holds every rank's output view. Keeps all ranks' buffers in
// memory: meant for small p (--sim-verify).
struct DataRun {
  SimResult result;
  std::vector<std::vector<std::byte>> outputs;
};
DataRun simulate_with_data(int p, const ScheduleSource& source, const NetworkParams& net,
                           std::span<const std::vector<std::byte>> inputs,
                           const SimOptions& options = {});
DataRun simulate_with_data(const AlgorithmEntry& algo, const CollParams& params,
                           const NetworkParams& net, std::span<const std::vector<std::byte>> inputs,
                           const SimOptions& options = {});

// The registry source used by simulate(algo, params, ...).
ScheduleSource registry_source(const AlgorithmEntry& algo, const CollParams& params);

}  // namespace cb::sim
