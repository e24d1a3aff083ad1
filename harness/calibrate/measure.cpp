#include "harness/calibrate/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "harness/calibrate/microbenchmarks.hpp"
#include "transports/contract/interrupt.hpp"
#include "harness/sweep/mode_probe.hpp"
#include "harness/sweep/time_schedule.hpp"
#include "harness/sweep/timing.hpp"

namespace cb::calibrate {
namespace {

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
// term slow (from 16 KiB on), and term `probe` priced the slow mode's rows 2x
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
// the pipelined ping-pong of term `flight`, in the guard's mode.
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

}  // namespace

Measurements measure_pair(const TransportSpec& t, const std::string& label,
                          std::size_t max_ping, Group& pair, bool root) {
  Measurements m;
  PairTimer timer{t, label, pair};
  // Term `probe`: the reference probe, the one `collbench run` takes before each
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

std::vector<double> measure_intra(const TransportSpec& t, const std::string& label,
                                  Group& pairs, const std::vector<double>& sizes) {
  const int p = pairs.size(), rank = pairs.rank();
  Schedule empty = micro(Collective::alltoall, DataType::uint8, rank, 1, {Step{}});
  empty.p = p;
  const PairTimer timer{t, label, pairs, time_schedule(t, label, empty, pairs)};
  std::vector<double> half_round_trips;
  for (double b : sizes)
    half_round_trips.push_back(
        timer.net(paired_ping_pong(rank, p, static_cast<std::size_t>(b))) / 2);
  return half_round_trips;
}

models::Calibration calibration_of(const Measurements& m, const std::string& label,
                                   int ranks_per_node) {
  models::Calibration c =
      models::fit_calibration(m.ping_B, m.t.pingpong_s, m.t.reduce_B, m.t.reduce_s);
  models::fit_terms(c, m.t);
  models::fit_flight(c, m.pipelined_s);
  models::fit_incast(c, m.fanin_k, m.fanin_B, m.fanin_s, m.fanin_exchange_s);
  models::fit_buffering(c, m.fanout_B, m.fanout_s);
  c.terms.probe = m.probe;
  c.transport = label;
  c.ranks = 2;
  const auto copy_at = [&](std::size_t bytes) {
    const auto i = std::find(m.t.copy_B.begin(), m.t.copy_B.end(), static_cast<double>(bytes));
    const auto at = static_cast<std::size_t>(i - m.t.copy_B.begin());
    return static_cast<double>(bytes) / m.t.copy_s[at] * 1e-9;
  };
  c.memcpy_GBps = copy_at(kLocalMax);
  c.memcpy_in_cache_GBps = copy_at(kMemcpyInCache);
  if (ranks_per_node > 0) {
    // The intra-node level: the same ping-pong fit on every node's pair at
    // once (measure_intra says why), and on ranks 0 and 1 alone beside it.
    const auto fit = [&](const std::vector<double>& s) {
      return models::fit_calibration(m.ping_B, s, m.t.reduce_B, m.t.reduce_s).params;
    };
    const models::ModelParams intra = fit(m.intra_ping_s);
    c.ranks_per_node = ranks_per_node;
    c.intra_alpha_s = intra.alpha_s;
    c.intra_beta_s_per_B = intra.beta_s_per_B;
    c.intra_pingpong_s = m.intra_ping_s;
    c.intra_pairs = m.intra_pairs;
    if (!m.intra_alone_ping_s.empty()) {
      const models::ModelParams alone = fit(m.intra_alone_ping_s);
      c.intra_alone_alpha_s = alone.alpha_s;
      c.intra_alone_beta_s_per_B = alone.beta_s_per_B;
      c.intra_alone_pingpong_s = m.intra_alone_ping_s;
    }
  }
  return c;
}

}  // namespace cb::calibrate
