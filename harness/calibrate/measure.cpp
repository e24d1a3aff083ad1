#include "harness/calibrate/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "harness/calibrate/microbenchmarks.hpp"
#include "harness/calibrate/term_table.hpp"
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

}  // namespace

double PairTimer::net(const Schedule& s) const {
  return std::max(time_schedule(t, label, s, pair) - run_s, 1e-12);
}

namespace {

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

// The message sweep: every row's size series (term_table.cpp), kPingMin ..
// max_ping bytes, each size one unit in the guard's mode.
void measure_messages(const PairTimer& timer, ModeGuard& guard, std::size_t max_ping,
                      Measurements& m) {
  std::vector<const SizeSeries*> series;
  for (const TermCalibration& row : term_calibrations())
    for (const SizeSeries& one : row.per_size)
      if (one.at) series.push_back(&one);
  std::vector<std::vector<double>> sizes;  // per size, one value per series
  for (std::size_t b = kPingMin; b <= max_ping;) {
    std::vector<double> one;
    const bool kept = measure_in_mode(guard, m, [&] {
      one.clear();
      for (const SizeSeries* s : series) one.push_back(s->at(timer, b));
    });
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
    for (std::size_t j = 0; j < series.size(); ++j) series[j]->into(m).push_back(sizes[i][j]);
  }
}

// The count unit in the guard's mode: every row's count series for k = 1 ..
// kMaxMessages, then its once-in-mode measurements.
void measure_counts(const PairTimer& timer, ModeGuard& guard, Measurements& m) {
  const bool kept = measure_in_mode(guard, m, [&] {
    for (const TermCalibration& row : term_calibrations())
      if (row.per_count.at) {
        row.per_count.k_into(m).clear();
        row.per_count.into(m).clear();
      }
    for (int k = 1; k <= kMaxMessages; k *= 2)
      for (const TermCalibration& row : term_calibrations())
        if (row.per_count.at) {
          row.per_count.k_into(m).push_back(k);
          row.per_count.into(m).push_back(row.per_count.at(timer, k));
        }
    for (const TermCalibration& row : term_calibrations())
      if (row.in_mode) row.in_mode(timer, m);
  });
  if (!kept) ++m.off_mode;
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
  for (const TermCalibration& row : term_calibrations())
    if (row.alone) row.alone(timer, m);
  return m;
}

void measure_fan_in(const TransportSpec& t, const std::string& label, std::size_t max_ping,
                    Group& all, Measurements& m) {
  const int p = all.size(), rank = all.rank();
  Schedule empty = micro(Collective::alltoall, DataType::uint8, rank, 1, {Step{}});
  empty.p = p;
  const PairTimer timer{t, label, all, time_schedule(t, label, empty, all)};
  for (const TermCalibration& row : term_calibrations())
    if (row.all_ranks) row.all_ranks(timer, max_ping, m);
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
  for (const TermCalibration& row : term_calibrations())
    if (row.fit) row.fit(m, c);
  c.transport = label;
  c.ranks = 2;
  const auto copy_at = [&](std::size_t bytes) {
    const auto i = std::find(m.t.copy_B.begin(), m.t.copy_B.end(), static_cast<double>(bytes));
    const auto at = static_cast<std::size_t>(i - m.t.copy_B.begin());
    return static_cast<double>(bytes) / m.t.copy_s[at] * 1e-9;
  };
  c.memcpy_GBps = copy_at(kLocalMax);
  c.memcpy_in_cache_GBps = copy_at(kMemcpyInCache);
  if (m.memory_copy_s > 0)
    c.memory_GBps = static_cast<double>(kMemorySlice) * kMemorySlices / m.memory_copy_s * 1e-9;
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
