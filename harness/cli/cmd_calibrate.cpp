// `mpiexec -n 2 collbench calibrate [--transport mpi|ipc] [--out FILE]`:
// measures the model's parameters without any collective, for an
// out-of-sample test of the model (`collbench fit --calibration FILE`). Each
// microbenchmark is a small schedule (not a collective) run through the
// transport's own Operation and timed like a collective (barrier, max over
// ranks, median), on ranks 0 and 1:
//  - ping-pong: rank 0 sends m bytes, rank 1 sends them back; half the round
//    trip, 8 B .. 64 MiB (-e). Gives the baseline alpha and beta
//    (models/calibration.hpp) and term (a), alpha/beta per size range.
//  - exchange: both ranks send and receive m bytes in one step (two such
//    steps, halved), 8 B .. 64 MiB: term (c), both directions streaming at
//    once; and the same exchange reducing (fp32 sum) what arrives; and
//    (term (f)) that exchange staged through scratch, as message-passing
//    schedules write it.
//  - relay: the ping-pong with each rank sending back the bytes it has just
//    received (its own output, written in the step before), 8 B .. 64 MiB:
//    term (e), what forwarding freshly written bytes adds per byte.
//  - k messages: a ping-pong of k 8-byte messages per direction in one step,
//    k = 1..16: term (d), the per-message overhead o (slope over k).
//  - pipelined ping-pong: two 8-byte messages from rank 0 to rank 1 in
//    consecutive steps, then one back: term (g), how much of a one-way
//    latency the sender spends (2 alpha plus that), the rest in flight.
//  - k local copies of 8 bytes in one step: term (b)'s cost per local op.
//  - an empty schedule: the fixed cost of one timed run, subtracted from all
//    of the above and charged once per collective (term (a)).
//  - fan-in, only on 3 or more ranks (all of them take part, rank 0
//    receiving): k = 2 .. ranks-1 senders each send m bytes to rank 0 in
//    one step, m = 256 KiB .. -e, at most 16 MiB (the ping-pong's large sizes), and the
//    k-way exchange (ranks 0..k each send m bytes to every other in one
//    step): term (h), the incast's extra time per received byte by k, for a
//    receiver that only receives and for one that sends at the same time.
//    The ranks past k have nothing to do in the step; ranks past 1 sleep
//    during the rest.
//  - fan-out, only on 3 or more ranks: rank 0 sends m bytes to rank 1, then
//    m bytes to rank 2 while rank 1 sends its m bytes back to rank 0, m =
//    4 KiB .. -e, at most 16 MiB: term (j), how much of a send the transport
//    buffers (completing it before its bytes cross), which lets rank 0's
//    second message share its link with the first.
//  - the mode probe (harness/sweep/mode_probe.hpp, term (i)): an 8-byte and
//    a 256 KiB exchange step, the probe `collbench run` takes before each
//    configuration, so the file says which coherence mode it was taken in.
//    It is taken first, and again after each message size and after the k
//    message counts; a unit whose probe before or after is in another mode
//    is measured again, and a mode that lasts restarts the message sweep in
//    it (ModeGuard): every term then describes the mode the file records.
//  - two levels: on a launch of 2 or more nodes of K >= 2 ranks each (the
//    runtime's layout, harness/runtime/node_layout.hpp), everything above
//    runs on the leaders of nodes 0 and 1 (ranks 0 and K: the network, as a
//    one-rank-per-node calibration measures it) and the fan-in on the node
//    leaders (3 or more nodes), and the ping-pong runs again between ranks
//    0 and 1 (one node): the intra-node alpha and beta, fitted the same way.
//  - copy and reduce (fp32 sum) of x bytes as a local op, both ranks at once,
//    4 KiB .. 64 MiB: the baseline gamma and term (b), per-byte costs at the
//    working set (in cache to out of cache). The copy also gives the memcpy
//    ceilings the report judges busbw by.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/common/direct.hpp"
#include "algorithms/schedule.hpp"
#include "algorithms/types.hpp"
#include "harness/cli/commands.hpp"
#include "harness/config.hpp"
#include "harness/report/metadata.hpp"
#include "harness/runtime/backend.hpp"
#include "harness/runtime/group.hpp"
#include "harness/runtime/load.hpp"
#include "harness/runtime/node_layout.hpp"
#include "harness/runtime/rank_subgroup.hpp"
#include "harness/runtime/world.hpp"
#include "harness/sweep/sizes.hpp"
#include "harness/sweep/interrupt.hpp"
#include "harness/sweep/mode_probe.hpp"
#include "harness/sweep/time_schedule.hpp"
#include "harness/sweep/timing.hpp"
#include "harness/io/output_file.hpp"
#include "models/calibration.hpp"
#include "models/fit_run.hpp"
#include "models/robust_fit.hpp"
#include "transports/watchdog.hpp"

namespace cb {
namespace {

// The ranks waited for cores when the latency-bound ping-pongs (up to
// kLatencyBoundMax bytes, which a network prices all alike) scatter: a busy
// scheduler delays each by anything up to a timeslice, while a network's
// latency, however long (the testbed's 3 ms links), delays them together.
// Scatter = (max - min) / median over those sizes; it must also exceed
// kSchedulerSpread_s, since on an idle node a 1 us ping-pong scatters by
// fractions of a microsecond that are no scheduler's doing.
constexpr std::size_t kLatencyBoundMax = 1024;
constexpr double kSchedulerScatter = 0.5;
constexpr double kSchedulerSpread_s = 20e-6;


struct CalibrateOptions {
  std::string out = "calibration.csv";
  std::string transport = "mpi";
  // Largest ping-pong and exchange size. 64 MiB: past the study's largest
  // sweep size (32 MiB), so that the bend out of cache (4-16 MiB on the VM)
  // has points on both sides for its knee (without them the exchange terms
  // kept ~9 GB/s to the end and priced 8-32 MiB 2-3x fast). A slow network
  // (the testbed's 100 Mbit/s) takes less: 20 runs of each large size
  // would take minutes.
  std::string max_bytes = "64M";
  double timeout_s = 300;  // --timeout: the watchdog's bound on one wait (s; 0 = off), as in run
};

constexpr std::size_t kPingMin = 8, kPingMax = std::size_t{64} << 20;
constexpr std::size_t kLocalMin = std::size_t{4} << 10, kLocalMax = std::size_t{64} << 20;
constexpr std::size_t kMemcpyInCache = std::size_t{256} << 10;  // fits L2 with room
constexpr std::size_t kSmallMessage = 8;
constexpr int kMaxMessages = 16;
// The fan-in's smallest size: where the ping-pong is bandwidth-bound on a
// network (the testbed's knee is below it) and incast shows.
constexpr std::size_t kFanInMin = std::size_t{256} << 10;
// And its largest: each rank's fan-in buffers hold p messages, so 64 MiB
// on 8 ranks would take 8 GiB; the incast term is flat past a few MiB.
constexpr std::size_t kFanInMax = std::size_t{16} << 20;
// The fan-out's smallest size: below a few KiB its extra time is within the
// latency's noise, and what buffering changes (a message's bytes at beta)
// is too.
constexpr std::size_t kFanOutMin = std::size_t{4} << 10;

// A two-rank schedule that is not a collective: `coll` only sizes the user
// buffers (alltoall: input and output of 2*count elements each).
Schedule micro(Collective coll, DataType dtype, int rank, std::size_t count,
               std::vector<Step> steps) {
  Schedule s;
  s.coll = coll;
  s.algorithm = "calibrate";
  s.p = 2;
  s.rank = rank;
  s.count = count;
  s.dtype = dtype;
  s.op = ReduceOp::sum;
  s.total_steps = steps.size();
  s.steps = std::move(steps);
  return s;
}

// Rank 0 sends k messages of m bytes to rank 1, then rank 1 sends them back.
Schedule ping_pong(int rank, std::size_t m, int k) {
  std::vector<Step> steps(2);
  for (int s = 0; s < 2; ++s) {
    const bool sender = (s == 0) == (rank == 0);
    for (int i = 0; i < k; ++i) {
      const Region r{sender ? kInput : kOutput, static_cast<std::size_t>(i) * m, m};
      if (sender)
        steps[s].sends.push_back({1 - rank, r});
      else
        steps[s].recvs.push_back({1 - rank, r, RecvMode::copy});
    }
  }
  return micro(Collective::alltoall, DataType::uint8, rank, m * static_cast<std::size_t>(k),
               std::move(steps));
}

// The ping-pong of forwarded bytes: rank 0 sends its output to rank 1's
// output, rank 1 sends that straight back into rank 0's output, so every
// message's source was written by its sender one step (or one run) before,
// as in a store-and-forward collective.
Schedule relay(int rank, std::size_t m) {
  std::vector<Step> steps(2);
  for (int s = 0; s < 2; ++s) {
    const Region r{kOutput, 0, m};
    if ((s == 0) == (rank == 0))
      steps[s].sends.push_back({1 - rank, r});
    else
      steps[s].recvs.push_back({1 - rank, r, RecvMode::copy});
  }
  return micro(Collective::alltoall, DataType::uint8, rank, m, std::move(steps));
}

// Both ranks send m bytes and receive m bytes in the same step, twice (as
// the ping-pong has two steps, so the per-run cost of the timing weighs the
// same per step in both). RecvMode::reduce: each rank reduces (fp32 sum) what
// it receives into its output, as reduce-scatter and all-reduce steps do.
Schedule exchange(int rank, std::size_t m, RecvMode mode = RecvMode::copy) {
  const bool reduce = mode == RecvMode::reduce;
  const std::size_t n = reduce ? m / sizeof(float) : m;
  std::vector<Step> steps(2);
  for (Step& s : steps) {
    s.sends.push_back({1 - rank, Region{kInput, 0, n}});
    s.recvs.push_back({1 - rank, Region{kOutput, 0, n}, mode});
  }
  return micro(reduce ? Collective::allreduce : Collective::alltoall,
               reduce ? DataType::fp32 : DataType::uint8, rank, n, std::move(steps));
}

Schedule exchange_reduce(int rank, std::size_t m) { return exchange(rank, m, RecvMode::reduce); }

// As exchange_reduce(), written as message-passing schedules do it
// (algorithms/common/messages.hpp, recv_reduce_from): receive into scratch,
// copy the own part into the output, reduce the scratch into it.
Schedule exchange_staged(int rank, std::size_t m) {
  Schedule s = exchange_reduce(rank, m);
  const std::size_t n = s.count;
  for (Step& st : s.steps) {
    st.recvs.front() = {1 - rank, Region{kScratch0, 0, n}, RecvMode::copy};
    st.locals = {{LocalKind::copy, Region{kInput, 0, n}, Region{kOutput, 0, n}},
                 {LocalKind::reduce, Region{kScratch0, 0, n}, Region{kOutput, 0, n}}};
  }
  s.scratch_counts = {n};
  return s;
}

// Term (g): rank 0 sends 8 bytes in step 0 and 8 more in step 1, rank 1
// answers in step 2. If a sender waited for its message to arrive before its
// next step, this would take 3 one-way latencies; it takes 2 plus what rank 0
// spends on one message. Timed as a round trip (rank 0 waits for the
// answer), so barrier exit skew cannot hide the second message's latency.
Schedule pipelined(int rank) {
  std::vector<Step> steps(3);
  for (int s = 0; s < 2; ++s) {
    const Region r{rank == 0 ? kInput : kOutput, static_cast<std::size_t>(s) * kSmallMessage,
                   kSmallMessage};
    if (rank == 0)
      steps[s].sends.push_back({1, r});
    else
      steps[s].recvs.push_back({0, r, RecvMode::copy});
  }
  if (rank == 1)
    steps[2].sends.push_back({0, Region{kInput, 0, kSmallMessage}});
  else
    steps[2].recvs.push_back({1, Region{kOutput, 0, kSmallMessage}, RecvMode::copy});
  return micro(Collective::alltoall, DataType::uint8, rank, kSmallMessage, std::move(steps));
}

// Term (h): ranks 1..k each send m bytes to rank 0 in one step, on a group
// of p ranks (ranks past k send nothing); rank 0 receives them side by
// side. `exchange`: ranks 0..k each send m bytes to every other of them and
// receive from every other in that step (a rank's k incoming flows then
// share its link with its k outgoing ones and their acknowledgements), in
// the naive algorithms' peer order (direct_round), the step this term
// prices. In rank order every rank sends to rank 0 first, and over TCP the
// step's time beyond the link's was up to 4x that in the naive order
// (testbed, 500 us, 100 Mbit/s, k = 3, 64 KiB: 9.3 ms against 2.1 ms).
Schedule fan_in(int rank, int p, int k, std::size_t m, bool exchange) {
  std::vector<Step> steps(1);
  const auto part = [m](int q) { return static_cast<std::size_t>(q) * m; };
  if (exchange && rank <= k) {
    direct_round(
        k + 1, rank, [&](int q) { steps[0].sends.push_back({q, Region{kInput, part(q), m}}); },
        [&](int q) {
          steps[0].recvs.push_back({q, Region{kOutput, part(q), m}, RecvMode::copy});
        });
  } else if (rank == 0) {
    for (int q = 1; q <= k; ++q)
      steps[0].recvs.push_back({q, Region{kOutput, part(q - 1), m}, RecvMode::copy});
  } else if (rank <= k) {
    steps[0].sends.push_back({0, Region{kInput, 0, m}});
  }
  Schedule s = micro(Collective::alltoall, DataType::uint8, rank, m, std::move(steps));
  s.p = p;  // alltoall buffers hold p * m bytes: room for every peer's part
  return s;
}

// Term (j): rank 0 sends m bytes to rank 1 in step 0; in step 1 it sends m
// bytes to rank 2 and receives rank 1's m bytes back (ranks past 2 idle).
// If rank 0's first send waits for its bytes to cross, this takes two
// one-way transfers; if the transport buffered them, the second message
// leaves at once and shares rank 0's link with the first, whose receiver
// then answers a transfer later. Distinct links for every message else:
// rank 0 receives only rank 1's answer, rank 2 only rank 0's message.
Schedule fan_out(int rank, int p, std::size_t m) {
  std::vector<Step> steps(2);
  const Region in{kInput, 0, m}, out{kOutput, 0, m};
  if (rank == 0) {
    steps[0].sends.push_back({1, in});
    steps[1].sends.push_back({2, in});
    steps[1].recvs.push_back({1, out, RecvMode::copy});
  } else if (rank == 1) {
    steps[0].recvs.push_back({0, out, RecvMode::copy});
    steps[1].sends.push_back({0, out});
  } else if (rank == 2) {
    steps[1].recvs.push_back({0, out, RecvMode::copy});
  }
  Schedule s = micro(Collective::alltoall, DataType::uint8, rank, m, std::move(steps));
  s.p = p;
  return s;
}

// k local copies of `bytes` each in one step (k = 1: one copy).
Schedule local_copies(int rank, std::size_t bytes, int k) {
  std::vector<Step> steps(1);
  for (int i = 0; i < k; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * bytes;
    steps[0].locals.push_back({LocalKind::copy, Region{kInput, at, bytes}, Region{kOutput, at, bytes}});
  }
  return micro(Collective::alltoall, DataType::uint8, rank, bytes * static_cast<std::size_t>(k),
               std::move(steps));
}

// One local copy (or fp32-sum reduce) of `bytes` from the input into the output.
Schedule local(int rank, std::size_t bytes, LocalKind kind) {
  std::vector<Step> steps(1);
  const bool reduce = kind == LocalKind::reduce;
  const std::size_t n = reduce ? bytes / sizeof(float) : bytes;
  steps[0].locals.push_back({kind, Region{kInput, 0, n}, Region{kOutput, 0, n}});
  return micro(reduce ? Collective::allreduce : Collective::alltoall,
               reduce ? DataType::fp32 : DataType::uint8, rank, n, std::move(steps));
}

// Median seconds of one run of `s` through the transport (max over the
// group's ranks per sample; rank 0's value, 0 elsewhere).
double time_schedule(const TransportSpec& t, const std::string& label, const Schedule& s,
                     Group& group) {
  SamplingPlan plan;
  plan.warmup = 3;
  plan.budget_s = 0.1;
  plan.ci_rel = 0.02;
  plan.min_iterations = 20;
  const std::optional<double> median = cb::time_schedule(t, label, s, group, plan);
  if (!median)  // both ranks agreed: both stop here
    throw Interrupted(interrupt_signal(), "during calibrate; nothing written");
  return *median;
}

void print_table(const char* title, const std::vector<double>& bytes,
                 const std::vector<double>& seconds, double bytes_per_time = 1) {
  fmt::print("# {}\n{:>12} {:>12} {:>12}\n", title, "size(B)", "time(us)", "GB/s");
  for (std::size_t i = 0; i < bytes.size(); ++i)
    fmt::print("{:>12} {:>12.3f} {:>12.3f}\n", bytes[i], seconds[i] * 1e6,
               bytes_per_time * bytes[i] / seconds[i] * 1e-9);
}

std::string ranges_text(const std::vector<models::SizeRange>& ranges) {
  std::string out;
  for (const models::SizeRange& r : ranges)
    out += fmt::format("{}from {} B: alpha {:.3f} us, {:.3f} GB/s", out.empty() ? "" : "; ",
                       r.from_B, r.alpha_s * 1e6,
                       r.beta_s_per_B > 0 ? 1e-9 / r.beta_s_per_B : INFINITY);
  return out;
}

// What the pair measured, in seconds net of an empty run (ranks other than
// 0 and 1 keep them empty): the ping-pong sizes, which also size the relay
// and the exchanges, and everything fit_terms takes.
struct Measurements {
  std::vector<double> ping_B;
  models::TermMeasurements t;
  double pipelined_s = 0;  // (g) the pipelined ping-pong, net of the empty run
  // (h) fan-in step times net of the empty run on all ranks, k-major over
  // fanin_k and fanin_B (empty on 2 ranks), and the same for the k-way
  // exchange among k + 1 ranks.
  std::vector<double> fanin_k, fanin_B, fanin_s, fanin_exchange_s;
  // (j) fan-out times net of the empty run on all ranks, at fanout_B.
  std::vector<double> fanout_B, fanout_s;
  models::ModeProbe probe;  // (i) the mode probe all of the above were measured in
  // Two levels: the intra-node ping-pong's half round trips at ping_B
  // (ranks 0 and 1 of one node; empty on one level).
  std::vector<double> intra_ping_s;
  // (i) how the calibration kept to that mode (ModeGuard): units measured
  // again, restarts of the message sweep in a new mode, and units kept
  // although the probe after them was in another mode.
  int remeasured = 0, restarts = 0, off_mode = 0;
};

// The transport to calibrate, checked: per-process, built, its options valid.
TransportSpec& calibrated_transport(const std::string& name) {
  TransportSpec& t = find_transport(name);
  if (!t.per_process || !t.make_operation)
    throw UsageError(fmt::format("--transport {}: calibrate measures per-process transports "
                                 "(mpi, ipc); the simulator takes its parameters as flags",
                                 name));
  if (!t.available) throw UsageError(fmt::format("--transport {}: {}", name, t.unavailable_reason));
  if (t.validate) t.validate();
  return t;
}

// -e/--maxbytes as bytes, within 4 KiB .. kPingMax.
std::size_t max_ping_bytes(const std::string& text) {
  const std::size_t max_ping = parse_bytes(text, "-e/--maxbytes");
  if (max_ping < 4096 || max_ping > kPingMax)
    throw UsageError(fmt::format("-e/--maxbytes '{}' is outside 4K..64M", text));
  return max_ping;
}

// Times schedules on the pair net of the empty run; a helper so that each
// sweep below reads as what it measures.
struct PairTimer {
  const TransportSpec& t;
  const std::string& label;
  Group& pair;
  double run_s = 0;
  double net(const Schedule& s) const {
    return std::max(time_schedule(t, label, s, pair) - run_s, 1e-12);
  }
};

// A unit of measurement is measured again while the probe before or after
// it is not in the guard's mode, up to kModeTries times; a mode that outlasts
// that many attempts (seconds) has changed for good, and the message sweep
// starts over in it, at most kModeRestarts times. Spread pair 1 of
// results/vm-2026-11-23-2 (in git history) shows why: its probe was fast, its forwarding
// term slow (from 16 KiB on), and term (i) priced the slow mode's rows 2x
// high by scaling that slow term again.
constexpr int kModeTries = 3;
constexpr int kModeRestarts = 2;

// Runs `unit` until the probes before and after it are in the guard's mode,
// at most kModeTries times; whether they were.
template <class Unit>
bool measure_in_mode(ModeGuard& guard, Measurements& m, Unit&& unit) {
  for (int i = 0; i < kModeTries; ++i) {
    if (i > 0) ++m.remeasured;
    const bool before = guard.last_in_mode() || guard.still_in_mode();
    unit();
    if (guard.still_in_mode() && before) return true;
  }
  return false;
}

// One message size's ping-pong, relay and three exchanges, seconds per step.
struct MessageTimes {
  double ping_s = 0, relay_s = 0, exchange_s = 0, exchange_reduce_s = 0, exchange_staged_s = 0;
};

MessageTimes measure_size(const PairTimer& timer, std::size_t b) {
  const int rank = timer.pair.rank();
  return {timer.net(ping_pong(rank, b, 1)) / 2, timer.net(relay(rank, b)) / 2,
          timer.net(exchange(rank, b)) / 2, timer.net(exchange_reduce(rank, b)) / 2,
          timer.net(exchange_staged(rank, b)) / 2};
}

// Ping-pong, relay and the three exchanges, kPingMin .. max_ping bytes, in
// the guard's mode.
void measure_messages(const PairTimer& timer, ModeGuard& guard, std::size_t max_ping,
                      Measurements& m) {
  std::vector<MessageTimes> sizes;
  for (std::size_t b = kPingMin; b <= max_ping;) {
    MessageTimes one;
    const bool kept = measure_in_mode(guard, m, [&] { one = measure_size(timer, b); });
    if (!kept && m.restarts < kModeRestarts) {
      ++m.restarts;
      guard.adopt_last();
      sizes.clear();
      b = kPingMin;
      continue;
    }
    if (!kept) ++m.off_mode;
    sizes.push_back(one);
    b *= 2;
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double b = static_cast<double>(kPingMin << i);
    m.ping_B.push_back(b);
    m.t.exchange_B.push_back(b);
    m.t.pingpong_s.push_back(sizes[i].ping_s);
    m.t.relay_s.push_back(sizes[i].relay_s);
    m.t.exchange_s.push_back(sizes[i].exchange_s);
    m.t.exchange_reduce_s.push_back(sizes[i].exchange_reduce_s);
    m.t.exchange_staged_s.push_back(sizes[i].exchange_staged_s);
  }
}

// k small messages per direction, k small local copies (k = 1 .. kMaxMessages) and
// the pipelined ping-pong of term (g), in the guard's mode.
void measure_counts(const PairTimer& timer, ModeGuard& guard, Measurements& m) {
  const int rank = timer.pair.rank();
  const bool kept = measure_in_mode(guard, m, [&] {
    m.t.multi_k.clear();
    m.t.multi_s.clear();
    m.t.ops_k.clear();
    m.t.ops_s.clear();
    for (int k = 1; k <= kMaxMessages; k *= 2) {
      m.t.multi_k.push_back(k);
      m.t.multi_s.push_back(timer.net(ping_pong(rank, kSmallMessage, k)) / 2);
      m.t.ops_k.push_back(k);
      m.t.ops_s.push_back(timer.net(local_copies(rank, kSmallMessage, k)));
    }
    m.pipelined_s = timer.net(pipelined(rank));
  });
  if (!kept) ++m.off_mode;
}

// Local copy and fp32-sum reduce, kLocalMin .. kLocalMax bytes.
void measure_locals(const PairTimer& timer, Measurements& m) {
  const int rank = timer.pair.rank();
  for (std::size_t b = kLocalMin; b <= kLocalMax; b *= 2) {
    m.t.copy_B.push_back(static_cast<double>(b));
    m.t.copy_s.push_back(timer.net(local(rank, b, LocalKind::copy)));
    m.t.reduce_B.push_back(static_cast<double>(b));
    m.t.reduce_s.push_back(timer.net(local(rank, b, LocalKind::reduce)));
  }
}

// Every microbenchmark of the header, on the pair (ranks 0 and 1).
Measurements measure(const TransportSpec& t, const std::string& label, std::size_t max_ping,
                     Group& pair, bool root) {
  Measurements m;
  PairTimer timer{t, label, pair};
  // (i): the reference probe, the one `collbench run` takes before each
  // configuration (the same function); every unit that depends on the mode
  // is kept to it. Local copies and reduces are not: in cache they did not
  // move between the modes (models/mode_probe.hpp).
  ModeGuard guard(t, label, pair);
  // The fixed cost of one timed run (barrier exit skew, start-up): an empty
  // schedule. Every microbenchmark below is net of it.
  m.t.run_s = time_schedule(
      t, label, micro(Collective::alltoall, DataType::uint8, pair.rank(), 1, {Step{}}), pair);
  timer.run_s = m.t.run_s;
  if (root && pair.oversubscribed())
    fmt::print(stderr,
               "collbench: warning: the 2 ranks share fewer than 2 cores; the calibration "
               "measures the OS scheduler as much as the transport\n");
  measure_messages(timer, guard, max_ping, m);
  measure_counts(timer, guard, m);
  m.probe = guard.reference();
  measure_locals(timer, m);
  return m;
}

// The intra-node ping-pong (two levels): ranks 0 and 1 of one node, at the
// network pair's sizes, net of an empty run on the same pair.
void measure_intra(const TransportSpec& t, const std::string& label, Group& pair,
                   Measurements& m) {
  const Schedule empty = micro(Collective::alltoall, DataType::uint8, pair.rank(), 1, {Step{}});
  const PairTimer timer{t, label, pair, time_schedule(t, label, empty, pair)};
  for (double b : m.ping_B)
    m.intra_ping_s.push_back(timer.net(ping_pong(pair.rank(), static_cast<std::size_t>(b), 1)) / 2);
}

// Terms (h) and (j) on every rank of `all` (3 or more): k = 2 .. size-1
// senders, kFanInMin .. min(max_ping, kFanInMax) bytes, and the fan-out at
// kFanOutMin .. the same, net of an empty run on the same group.
void measure_fan_in(const TransportSpec& t, const std::string& label, std::size_t max_ping,
                    Group& all, Measurements& m) {
  const int p = all.size(), rank = all.rank();
  Schedule empty = micro(Collective::alltoall, DataType::uint8, rank, 1, {Step{}});
  empty.p = p;
  const PairTimer timer{t, label, all, time_schedule(t, label, empty, all)};
  const std::size_t most = std::min(max_ping, kFanInMax);
  for (std::size_t b = std::min(kFanInMin, most); b <= most; b *= 2)
    m.fanin_B.push_back(static_cast<double>(b));
  for (int k = 2; k < p; ++k) {
    m.fanin_k.push_back(k);
    for (double b : m.fanin_B) {
      const auto bytes = static_cast<std::size_t>(b);
      m.fanin_s.push_back(timer.net(fan_in(rank, p, k, bytes, false)));
      m.fanin_exchange_s.push_back(timer.net(fan_in(rank, p, k, bytes, true)));
    }
  }
  for (std::size_t b = std::min(kFanOutMin, most); b <= most; b *= 2) {
    m.fanout_B.push_back(static_cast<double>(b));
    m.fanout_s.push_back(timer.net(fan_out(rank, p, b)));
  }
}

// The calibration fitted to the measurements, with the run's metadata.
models::Calibration fit(const Measurements& m, const std::string& label,
                        const RunMetadata& meta, int ranks_per_node) {
  models::Calibration c =
      models::fit_calibration(m.ping_B, m.t.pingpong_s, m.t.reduce_B, m.t.reduce_s);
  models::fit_terms(c, m.t);
  models::fit_flight(c, m.pipelined_s);
  models::fit_incast(c, m.fanin_k, m.fanin_B, m.fanin_s, m.fanin_exchange_s);
  models::fit_buffering(c, m.fanout_B, m.fanout_s);
  c.terms.probe = m.probe;
  c.transport = label;
  c.ranks = 2;
  c.host = meta.host;
  c.timestamp = meta.timestamp;
  c.collbench_version = meta.collbench_version;
  c.git_rev = meta.git_rev;
  c.mpi_version = meta.mpi_version;
  const auto copy_at = [&](std::size_t bytes) {
    const auto i = std::find(m.t.copy_B.begin(), m.t.copy_B.end(), static_cast<double>(bytes));
    const auto at = static_cast<std::size_t>(i - m.t.copy_B.begin());
    return static_cast<double>(bytes) / m.t.copy_s[at] * 1e-9;
  };
  c.memcpy_GBps = copy_at(kLocalMax);
  c.memcpy_in_cache_GBps = copy_at(kMemcpyInCache);
  if (ranks_per_node > 0) {
    // The intra-node level: the same ping-pong fit on the other pair.
    const models::Calibration intra =
        models::fit_calibration(m.ping_B, m.intra_ping_s, m.t.reduce_B, m.t.reduce_s);
    c.ranks_per_node = ranks_per_node;
    c.intra_alpha_s = intra.params.alpha_s;
    c.intra_beta_s_per_B = intra.params.beta_s_per_B;
    c.intra_pingpong_s = m.intra_ping_s;
  }
  return c;
}

// Calibrating on a busy machine bakes the scheduler into alpha: say so
// instead of silently accepting ping-pongs the scheduler scattered.
void warn_about_load(const Measurements& m, const RunMetadata& meta, int ranks_on_node) {
  if (meta.load) fmt::print("# load: {}\n", describe(*meta.load));
  if (const std::string warning = load_warning(meta.load, ranks_on_node); !warning.empty())
    fmt::print(stderr, "{}\n", warning);
  std::vector<double> small;
  for (std::size_t i = 0; i < m.ping_B.size() && i < m.t.pingpong_s.size(); ++i)
    if (m.ping_B[i] <= kLatencyBoundMax) small.push_back(m.t.pingpong_s[i]);
  if (small.size() < 3) return;
  const auto [lo, hi] = std::minmax_element(small.begin(), small.end());
  std::vector<double> sorted = small;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double median = sorted[sorted.size() / 2];
  const double spread = *hi - *lo;
  if (spread > kSchedulerScatter * median && spread > kSchedulerSpread_s)
    fmt::print(stderr,
               "collbench: warning: the ping-pongs of {} B to {} B scatter from {:.1f} to {:.1f} us "
               "around {:.1f} us (a network delays them alike): the ranks waited for cores, so "
               "alpha is the scheduler's, not the transport's; pin them (mpiexec -bind-to core) "
               "and calibrate on a quieter machine\n",
               kPingMin, kLatencyBoundMax, *lo * 1e6, *hi * 1e6, median * 1e6);
}

// A "k, time(us)" table (k messages or k local copies in one step).
void print_count_table(const std::string& title, const std::vector<double>& k,
                       const std::vector<double>& seconds) {
  fmt::print("# {}\n{:>12} {:>12}\n", title, "k", "time(us)");
  for (std::size_t i = 0; i < k.size(); ++i)
    fmt::print("{:>12} {:>12.3f}\n", k[i], seconds[i] * 1e6);
}

// Every microbenchmark's table, as measured.
void print_measurements(const Measurements& m, const std::string& label) {
  fmt::print("# calibration of transport {} on ranks 0 and 1: each time is the median of runs "
             "timed like a collective (barrier, slower rank), net of an empty run's {:.3f} us\n",
             label, m.t.run_s * 1e6);
  print_table("ping-pong: half round trip", m.ping_B, m.t.pingpong_s);
  print_table("relay: half round trip, each rank sending back what it just received", m.ping_B,
              m.t.relay_s);
  print_table("exchange: both ranks send and receive at once, per step (GB/s per direction)",
              m.t.exchange_B, m.t.exchange_s);
  print_table("exchange reducing what arrives (fp32 sum), per step", m.t.exchange_B,
              m.t.exchange_reduce_s);
  print_table("exchange staged: into scratch, own part copied, scratch reduced (fp32 sum), per "
              "step", m.t.exchange_B, m.t.exchange_staged_s);
  print_count_table(fmt::format("k messages of {} B per direction in one step: half round trip",
                                kSmallMessage),
                    m.t.multi_k, m.t.multi_s);
  print_count_table(fmt::format("k local copies of {} B in one step", kSmallMessage), m.t.ops_k,
                    m.t.ops_s);
  const auto rows = [&](const std::vector<double>& all, std::size_t i) {
    const std::size_t n = m.fanin_B.size();
    return std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(i * n),
                               all.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
  };
  for (std::size_t i = 0; i < m.fanin_k.size(); ++i) {
    print_table(fmt::format("fan-in: {} senders, m B each, to one receiver in one step (GB/s "
                            "received)", m.fanin_k[i]).c_str(),
                m.fanin_B, rows(m.fanin_s, i), m.fanin_k[i]);
    print_table(fmt::format("{}-way exchange: each of {} ranks sends m B to every other in one "
                            "step (GB/s received per rank)", m.fanin_k[i], m.fanin_k[i] + 1).c_str(),
                m.fanin_B, rows(m.fanin_exchange_s, i), m.fanin_k[i]);
  }
  if (!m.fanout_B.empty())
    print_table("fan-out: rank 0 sends m B to rank 1, then m B to rank 2 while rank 1 sends "
                "them back (GB/s: one transfer of m)",
                m.fanout_B, m.fanout_s);
  if (!m.intra_ping_s.empty())
    print_table("intra-node ping-pong (ranks 0 and 1, one node): half round trip", m.ping_B,
                m.intra_ping_s);
  print_table("local copy on both ranks at once", m.t.copy_B, m.t.copy_s);
  print_table("local fp32-sum reduce on both ranks at once", m.t.reduce_B, m.t.reduce_s);
}

// The fitted baseline and terms (a) to (j), a line each.
void print_fit(const models::Calibration& c) {
  std::string knees;
  for (double k : c.pingpong_knees_B) knees += fmt::format(" {}", k);
  fmt::print("baseline: alpha {:.4g} s ({:.3f} us), beta {:.4g} s/B ({:.3f} GB/s), gamma {:.4g} "
             "s/B ({:.3f} GB/s); ping-pong knees at:{}\n",
             c.params.alpha_s, c.params.alpha_s * 1e6, c.params.beta_s_per_B,
             1e-9 / c.params.beta_s_per_B, c.params.gamma_s_per_B, 1e-9 / c.params.gamma_s_per_B,
             knees.empty() ? " none" : knees);
  if (c.ranks_per_node > 0)
    fmt::print("two levels ({} ranks per node): the baseline and terms are the network's (ranks 0 "
               "and {}, two nodes); intra-node (ranks 0 and 1): alpha {:.4g} s ({:.3f} us), beta "
               "{:.4g} s/B ({:.3f} GB/s)\n",
               c.ranks_per_node, c.ranks_per_node, c.intra_alpha_s, c.intra_alpha_s * 1e6,
               c.intra_beta_s_per_B, 1e-9 / c.intra_beta_s_per_B);
  fmt::print("(a) one-way ranges: {}\n", ranges_text(c.terms.oneway));
  fmt::print("(b) copy {:.2f} GB/s at {} B, {:.2f} GB/s at {} B (both ranks at once); {:.3f} us "
             "per local operation\n",
             c.memcpy_in_cache_GBps, kMemcpyInCache, c.memcpy_GBps, kLocalMax,
             c.terms.local_op_s * 1e6);
  fmt::print("(c) exchange ranges: {}\n", ranges_text(c.terms.exchange));
  fmt::print("(c) reducing exchange ranges: {}\n", ranges_text(c.terms.exchange_reduce));
  fmt::print("(f) staged reducing exchange ranges: {}\n", ranges_text(c.terms.exchange_staged));
  fmt::print("(d) overhead o {:.3f} us per extra message in a step\n", c.terms.overhead_s * 1e6);
  fmt::print("(g) pipelined ping-pong {:.3f} us: of the {:.3f} us one-way latency, {:.3f} us in "
             "flight\n",
             c.pipelined_s * 1e6, c.pingpong_s.empty() ? 0.0 : c.pingpong_s.front() * 1e6,
             c.terms.flight_s * 1e6);
  std::string forward;
  for (std::size_t i = 0; i < c.terms.forward.size_B.size(); i += 4)
    forward += fmt::format("{}{} B: {:.3g} ns/B", forward.empty() ? "" : ", ",
                           c.terms.forward.size_B[i], c.terms.forward.s_per_B[i] * 1e9);
  fmt::print("(e) forwarding adds (relay - ping-pong, per byte): {}\n",
             forward.empty() ? "not measured" : forward);
  std::string incast;
  const double beta = c.params.beta_s_per_B;
  const auto of_beta = [beta](double x) { return beta > 0 ? 100 * x / beta : 0.0; };
  for (std::size_t i = 0; i < c.terms.incast.size_B.size(); ++i)
    incast += fmt::format("{}k={}: {:.3g} ns/B ({:+.1f}% of beta), sending too {:.3g} ns/B "
                          "({:+.1f}%)", incast.empty() ? "" : "; ", c.terms.incast.size_B[i],
                          c.terms.incast.s_per_B[i] * 1e9, of_beta(c.terms.incast.s_per_B[i]),
                          c.terms.incast_sending.s_per_B[i] * 1e9,
                          of_beta(c.terms.incast_sending.s_per_B[i]));
  fmt::print("(h) incast adds (fan-in - ping-pong - (k-1) m beta, per received byte): {}\n",
             incast.empty() ? "not measured (calibrate on 3 or more ranks)" : incast);
  std::string buffered;
  for (std::size_t i = 0; i < c.terms.buffered.size_B.size(); ++i)
    buffered += fmt::format("{}{} B: {:.2f}", buffered.empty() ? "" : ", ",
                            c.terms.buffered.size_B[i], c.terms.buffered.s_per_B[i]);
  fmt::print("(j) send buffering (fan-out - 2 ping-pongs, in transfers of m): {}\n",
             buffered.empty() ? "not measured (calibrate on 3 or more ranks)" : buffered);
  fmt::print("(i) mode probe: exchange step (the second forwarding) {:.3f} us at {} B, {:.3f} us at {} B\n",
             c.terms.probe.small_s * 1e6, kProbeSmallBytes, c.terms.probe.large_s * 1e6,
             kProbeLargeBytes);
}

// How the calibration kept to its probe's mode; a warning where it could not.
void print_mode_kept(const Measurements& m) {
  fmt::print("(i) kept to that mode: {} unit(s) measured again after a probe in another mode, "
             "{} restart(s) of the message sweep in a new mode, {} unit(s) kept out of mode\n",
             m.remeasured, m.restarts, m.off_mode);
  if (m.off_mode > 0)
    fmt::print(stderr,
               "collbench: warning: {} unit(s) of the calibration ran in another coherence mode "
               "than its probe (the mode kept changing); term (i) will misprice rows by them: "
               "calibrate again\n",
               m.off_mode);
}

// Phases: check the flags and the world, measure on ranks 0 and 1 (the
// others wait), the fan-in on all ranks when there are 3 or more, then on
// rank 0 fit, warn, print and write.
void calibrate(const CalibrateOptions& o) {
  // Before measuring: an unusable --out (a directory, a missing directory,
  // an empty name) fails at once; no directory is created.
  io::check_output_path(o.out, "--out");
  set_timeout_option(o.timeout_s);
  // A signal stops at the next sample batch (time_schedule), or within a
  // second where there is none (interrupt.hpp); --out is written only at the end.
  install_interrupt_handlers();
  Group& w = world();
  set_watchdog_rank(w.rank());
  const WatchdogLabel label_for_watchdog(WatchdogLabel::configuration, "calibrate");
  if (w.size() < 2)
    throw UsageError(
        "calibrate needs 2 ranks for its ping-pong: run `mpiexec -n 2 collbench calibrate`");
  TransportSpec& t = calibrated_transport(o.transport);
  const std::string label = t.label ? t.label() : std::string(t.name);
  const std::size_t max_ping = max_ping_bytes(o.max_bytes);
  const bool root = w.rank() == 0;
  // Two levels (collective: every rank learns the layout): 2 or more nodes
  // of k >= 2 consecutive ranks. The network pair is then ranks 0 and k (two
  // nodes' leaders), the fan-in runs on the node leaders, and ranks 0 and 1
  // (one node) measure the intra-node ping-pong.
  const NodeLayoutInfo layout = world_node_layout();
  const int k = layout.nodes >= 2 && layout.ranks_per_node >= 2 ? layout.ranks_per_node : 0;
  std::vector<int> network_pair{0, 1}, fan_in_ranks;
  if (k > 0) {
    network_pair = {0, k};
    for (int r = 0; r < w.size(); r += k) fan_in_ranks.push_back(r);
  } else {
    for (int r = 0; r < w.size(); ++r) fan_in_ranks.push_back(r);
  }
  if (root && k > 0)
    fmt::print(stderr, "collbench: two levels ({}): the network with ranks 0 and {}, the fan-in "
               "on the {} node leaders, the intra-node ping-pong with ranks 0 and 1\n",
               layout.describe(), k, fan_in_ranks.size());
  else if (root && w.size() > 2)
    fmt::print(stderr, "collbench: calibrating with ranks 0 and 1; the other {} ranks idle "
               "until the fan-in (term (h)), which all {} ranks run\n",
               w.size() - 2, w.size());
  Measurements m;
  {
    std::unique_ptr<Group> pair = rank_subgroup(w, network_pair, WaitPolicy::automatic);
    if (pair) m = measure(t, label, max_ping, *pair, root);
  }
  w.any(false, WaitPolicy::sleep);  // idle ranks sleep here until the pair is done
  if (k > 0) {
    // Rank 0 hands the sizes to rank 1, which did not measure them.
    const int sizes = static_cast<int>(w.broadcast_from_root(static_cast<std::int64_t>(m.ping_B.size())));
    if (!root)
      for (int i = 0; i < sizes; ++i) m.ping_B.push_back(static_cast<double>(kPingMin << i));
    const std::vector<int> intra_pair{0, 1};
    std::unique_ptr<Group> pair = rank_subgroup(w, intra_pair, WaitPolicy::automatic);
    if (pair) measure_intra(t, label, *pair, m);
    w.any(false, WaitPolicy::sleep);
  }
  if (fan_in_ranks.size() >= 3) {
    const std::unique_ptr<Group> all = rank_subgroup(w, fan_in_ranks, WaitPolicy::automatic);
    if (all) measure_fan_in(t, label, max_ping, *all, m);
  }
  // The ranks outside the fan-in (two levels: all but the node leaders) wait
  // for it: a launcher that ends a job once its first rank is done (the
  // testbed's MPI_Finalize guard) would end it in the middle.
  w.any(false, WaitPolicy::sleep);
  if (!root) return;

  const RunMetadata meta = collect_metadata();
  const models::Calibration c = fit(m, label, meta, k);
  warn_about_load(m, meta, w.ranks_on_node());
  print_measurements(m, label);
  print_fit(c);
  print_mode_kept(m);
  io::write_whole_file(o.out, "--out", models::format_calibration(c));
  if (!io::is_stdout(o.out)) fmt::print("wrote {}\n", o.out);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure the model's parameters (ping-pong, exchange, k messages, copy and reduce "
      "microbenchmarks through a transport) without any collective; run as `mpiexec -n 2 "
      "collbench calibrate`");
  cmd->add_option("--out", o->out, "calibration file to write (CSV)")->capture_default_str();
  cmd->add_option("--transport", o->transport,
                  "transport to calibrate: mpi, or ipc (host shared memory)")
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", o->max_bytes,
                  "largest ping-pong and exchange size, 4K..64M (K/M = 1024^n)")
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_s,
                  "Watchdog: seconds any single wait for a peer may last before the rank "
                  "reports where it waits and calibrate ends with status 5 (0 = off)")
      ->capture_default_str();
  cmd->callback([o] { calibrate(*o); });
}

}  // namespace cb
