#include "harness/calibrate/term_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "harness/calibrate/microbenchmarks.hpp"
#include "harness/sweep/mode_probe.hpp"

namespace cb::calibrate {
namespace {

using models::Calibration;
using models::Term;

// Size ranges as "from B: alpha us, GB/s; ...".
std::string ranges_text(const std::vector<models::SizeRange>& ranges) {
  std::string out;
  for (const models::SizeRange& r : ranges)
    out += fmt::format("{}from {} B: alpha {:.3f} us, {:.3f} GB/s", out.empty() ? "" : "; ",
                       r.from_B, r.alpha_s * 1e6,
                       r.beta_s_per_B > 0 ? 1e-9 / r.beta_s_per_B : INFINITY);
  return out;
}

// range: the ping-pong's half round trip (its empty run is the frame's, measure.cpp).
constexpr SizeSeries kPingPong{
    [](const PairTimer& t, std::size_t b) { return t.net(ping_pong(t.rank(), b, 1)) / 2; },
    [](Measurements& m) -> std::vector<double>& { return m.t.pingpong_s; }};

std::vector<std::string> range_lines(const Calibration& c) {
  return {fmt::format("one-way ranges: {}", ranges_text(c.terms.oneway))};
}

// forward: the relay's half round trip.
constexpr SizeSeries kRelay{
    [](const PairTimer& t, std::size_t b) { return t.net(relay(t.rank(), b)) / 2; },
    [](Measurements& m) -> std::vector<double>& { return m.t.relay_s; }};

std::vector<std::string> forward_lines(const Calibration& c) {
  std::string forward;
  for (std::size_t i = 0; i < c.terms.forward.size_B.size(); i += 4)
    forward += fmt::format("{}{} B: {:.3g} ns/B", forward.empty() ? "" : ", ",
                           c.terms.forward.size_B[i], c.terms.forward.s_per_B[i] * 1e9);
  return {fmt::format("forwarding adds (relay - ping-pong, per byte): {}",
                      forward.empty() ? "not measured" : forward)};
}

// concurrency: the exchange, copying and reducing what arrives, per step.
constexpr SizeSeries kExchange{
    [](const PairTimer& t, std::size_t b) { return t.net(exchange(t.rank(), b)) / 2; },
    [](Measurements& m) -> std::vector<double>& { return m.t.exchange_s; }};
constexpr SizeSeries kExchangeReduce{
    [](const PairTimer& t, std::size_t b) { return t.net(exchange_reduce(t.rank(), b)) / 2; },
    [](Measurements& m) -> std::vector<double>& { return m.t.exchange_reduce_s; }};

std::vector<std::string> concurrency_lines(const Calibration& c) {
  return {fmt::format("exchange ranges: {}", ranges_text(c.terms.exchange)),
          fmt::format("reducing exchange ranges: {}", ranges_text(c.terms.exchange_reduce))};
}

// staged: the reducing exchange staged through scratch, per step.
constexpr SizeSeries kExchangeStaged{
    [](const PairTimer& t, std::size_t b) { return t.net(exchange_staged(t.rank(), b)) / 2; },
    [](Measurements& m) -> std::vector<double>& { return m.t.exchange_staged_s; }};

std::vector<std::string> staged_lines(const Calibration& c) {
  return {fmt::format("staged reducing exchange ranges: {}", ranges_text(c.terms.exchange_staged))};
}

// overhead: k small messages per direction, half round trip.
constexpr CountSeries kMessages{
    [](const PairTimer& t, int k) { return t.net(ping_pong(t.rank(), kSmallMessage, k)) / 2; },
    [](Measurements& m) -> std::vector<double>& { return m.t.multi_k; },
    [](Measurements& m) -> std::vector<double>& { return m.t.multi_s; }};

std::vector<std::string> overhead_lines(const Calibration& c) {
  return {fmt::format("o {:.3f} us per extra message in a step", c.terms.overhead_s * 1e6)};
}

// copy: k small local copies in one step, and the copy and fp32-sum reduce
// from kLocalMin to kLocalMax bytes (in cache they did not move between the
// modes, models/mode_probe.hpp: not kept to the probe's).
constexpr CountSeries kLocalOps{
    [](const PairTimer& t, int k) { return t.net(local_copies(t.rank(), kSmallMessage, k)); },
    [](Measurements& m) -> std::vector<double>& { return m.t.ops_k; },
    [](Measurements& m) -> std::vector<double>& { return m.t.ops_s; }};

void measure_locals(const PairTimer& timer, Measurements& m) {
  const int rank = timer.rank();
  for (std::size_t b = kLocalMin; b <= kLocalMax; b *= 2) {
    m.t.copy_B.push_back(static_cast<double>(b));
    m.t.copy_s.push_back(timer.net(local(rank, b, LocalKind::copy)));
    m.t.reduce_B.push_back(static_cast<double>(b));
    m.t.reduce_s.push_back(timer.net(local(rank, b, LocalKind::reduce)));
  }
  m.memory_copy_s = timer.net(local_copies(rank, kMemorySlice, kMemorySlices));
}

std::vector<std::string> copy_lines(const Calibration& c) {
  return {fmt::format("{:.2f} GB/s at {} B, {:.2f} GB/s at {} B (both ranks at once); {:.3f} us "
                      "per local operation",
                      c.memcpy_in_cache_GBps, kMemcpyInCache, c.memcpy_GBps, kLocalMax,
                      c.terms.local_op_s * 1e6),
          fmt::format("memory: {:.2f} GB/s copying {} x {} B in a row (both ranks at once; the "
                      "memory-traffic bound's rate)",
                      c.memory_GBps, kMemorySlices, kMemorySlice)};
}

// flight: the pipelined ping-pong.
void measure_pipelined(const PairTimer& timer, Measurements& m) {
  m.pipelined_s = timer.net(pipelined(timer.rank()));
}

std::vector<std::string> flight_lines(const Calibration& c) {
  return {fmt::format("pipelined ping-pong {:.3f} us: of the {:.3f} us one-way latency, {:.3f} us "
                      "in flight",
                      c.pipelined_s * 1e6, c.pingpong_s.empty() ? 0.0 : c.pingpong_s.front() * 1e6,
                      c.terms.flight_s * 1e6)};
}

// The fan's sizes: kFanInMin (kFanOutMin) .. min(max_ping, kFanInMax) bytes.
std::size_t fan_most(std::size_t max_ping) { return std::min(max_ping, kFanInMax); }

// incast: the fan-in and the k-way exchange for k = 2 .. size-1 senders.
void measure_fan_in(const PairTimer& timer, std::size_t max_ping, Measurements& m) {
  const int p = timer.pair.size(), rank = timer.rank();
  const std::size_t most = fan_most(max_ping);
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
}

std::vector<std::string> incast_lines(const Calibration& c) {
  std::string incast;
  const double beta = c.params.beta_s_per_B;
  const auto of_beta = [beta](double x) { return beta > 0 ? 100 * x / beta : 0.0; };
  for (std::size_t i = 0; i < c.terms.incast.size_B.size(); ++i)
    incast += fmt::format(
        "{}k={}: {:.3g} ns/B ({:+.1f}% of beta), sending too {:.3g} ns/B "
        "({:+.1f}%)",
        incast.empty() ? "" : "; ", c.terms.incast.size_B[i], c.terms.incast.s_per_B[i] * 1e9,
        of_beta(c.terms.incast.s_per_B[i]), c.terms.incast_sending.s_per_B[i] * 1e9,
        of_beta(c.terms.incast_sending.s_per_B[i]));
  return {fmt::format("incast adds (fan-in - ping-pong - (k-1) m beta, per received byte): {}",
                      incast.empty() ? "not measured (calibrate on 3 or more ranks)" : incast)};
}

// buffering: the fan-out.
void measure_fan_out(const PairTimer& timer, std::size_t max_ping, Measurements& m) {
  const int p = timer.pair.size(), rank = timer.rank();
  const std::size_t most = fan_most(max_ping);
  for (std::size_t b = std::min(kFanOutMin, most); b <= most; b *= 2) {
    m.fanout_B.push_back(static_cast<double>(b));
    m.fanout_s.push_back(timer.net(fan_out(rank, p, b)));
  }
}

std::vector<std::string> buffering_lines(const Calibration& c) {
  std::string buffered;
  for (std::size_t i = 0; i < c.terms.buffered.size_B.size(); ++i)
    buffered += fmt::format("{}{} B: {:.2f}", buffered.empty() ? "" : ", ",
                            c.terms.buffered.size_B[i], c.terms.buffered.s_per_B[i]);
  return {fmt::format("send buffering (fan-out - 2 ping-pongs, in transfers of m): {}",
                      buffered.empty() ? "not measured (calibrate on 3 or more ranks)" : buffered)};
}

// probe: the mode probe is the frame's (measure.cpp keeps every unit to it).
std::vector<std::string> probe_lines(const Calibration& c) {
  return {fmt::format("exchange step (the second forwarding) {:.3f} us at {} B, {:.3f} us at {} B",
                      c.terms.probe.small_s * 1e6, kProbeSmallBytes, c.terms.probe.large_s * 1e6,
                      kProbeLargeBytes)};
}

// In the order the measurements run: in the message sweep ping-pong, relay,
// the exchanges; per count the k messages before the k local copies. The
// terms range .. copy are fitted together by models::fit_terms (measure.cpp).
constexpr TermCalibration kRows[] = {
    {.term = Term::range, .per_size = {kPingPong}, .lines = range_lines},
    {.term = Term::forward, .per_size = {kRelay}, .lines = forward_lines},
    {.term = Term::concurrency, .per_size = {kExchange, kExchangeReduce},
     .lines = concurrency_lines},
    {.term = Term::staged, .per_size = {kExchangeStaged}, .lines = staged_lines},
    {.term = Term::overhead, .per_count = kMessages, .lines = overhead_lines},
    {.term = Term::copy, .per_count = kLocalOps, .alone = measure_locals, .lines = copy_lines},
    {.term = Term::flight,
     .in_mode = measure_pipelined,
     .fit = [](const Measurements& m, Calibration& c) { models::fit_flight(c, m.pipelined_s); },
     .lines = flight_lines},
    {.term = Term::incast,
     .all_ranks = measure_fan_in,
     .fit =
         [](const Measurements& m, Calibration& c) {
           models::fit_incast(c, m.fanin_k, m.fanin_B, m.fanin_s, m.fanin_exchange_s);
         },
     .lines = incast_lines},
    {.term = Term::buffering,
     .all_ranks = measure_fan_out,
     .fit = [](const Measurements& m,
               Calibration& c) { models::fit_buffering(c, m.fanout_B, m.fanout_s); },
     .lines = buffering_lines},
    {.term = Term::probe,
     .fit = [](const Measurements& m, Calibration& c) { c.terms.probe = m.probe; },
     .lines = probe_lines},
};

// Every term of kTerms has one row, with its lines: a term without one
// fails to compile.
static_assert([] {
  for (const models::TermInfo& info : models::kTerms) {
    int rows = 0;
    for (const TermCalibration& row : kRows)
      if (row.term == info.term && row.lines) ++rows;
    if (rows != 1) return false;
  }
  return std::size(kRows) == std::size(models::kTerms);
}(), "every term of kTerms needs one row in kRows, with its lines");

}  // namespace

std::span<const TermCalibration> term_calibrations() { return kRows; }

const TermCalibration& term_calibration(Term term) {
  for (const TermCalibration& row : kRows)
    if (row.term == term) return row;
  throw std::logic_error("a Term without its row in term_table.cpp");
}

}  // namespace cb::calibrate
