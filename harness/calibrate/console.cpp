#include "harness/calibrate/console.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "harness/calibrate/microbenchmarks.hpp"
#include "harness/sweep/mode_probe.hpp"
#include "models/terms.hpp"

namespace cb::calibrate {
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

using models::Term;

// A fitted term's line starts with its name, as CSVs and flags spell it
// (models/terms.hpp, kTerms).
std::string_view name(Term term) { return models::term_info(term).name; }

// A "size(B), time(us), GB/s" table.
void print_table(const char* title, const std::vector<double>& bytes,
                 const std::vector<double>& seconds, double bytes_per_time = 1) {
  fmt::print("# {}\n{:>12} {:>12} {:>12}\n", title, "size(B)", "time(us)", "GB/s");
  for (std::size_t i = 0; i < bytes.size(); ++i)
    fmt::print("{:>12} {:>12.3f} {:>12.3f}\n", bytes[i], seconds[i] * 1e6,
               bytes_per_time * bytes[i] / seconds[i] * 1e-9);
}

// Size ranges as "from B: alpha us, GB/s; ...".
std::string ranges_text(const std::vector<models::SizeRange>& ranges) {
  std::string out;
  for (const models::SizeRange& r : ranges)
    out += fmt::format("{}from {} B: alpha {:.3f} us, {:.3f} GB/s", out.empty() ? "" : "; ",
                       r.from_B, r.alpha_s * 1e6,
                       r.beta_s_per_B > 0 ? 1e-9 / r.beta_s_per_B : INFINITY);
  return out;
}

// A "k, time(us)" table (k messages or k local copies in one step).
void print_count_table(const std::string& title, const std::vector<double>& k,
                       const std::vector<double>& seconds) {
  fmt::print("# {}\n{:>12} {:>12}\n", title, "k", "time(us)");
  for (std::size_t i = 0; i < k.size(); ++i)
    fmt::print("{:>12} {:>12.3f}\n", k[i], seconds[i] * 1e6);
}

// Each term's fitted parameters, a line each (print_fit starts every line
// with the term's name): one row per kTerms row, in its order.
std::vector<std::string> range_lines(const models::Calibration& c) {
  return {fmt::format("one-way ranges: {}", ranges_text(c.terms.oneway))};
}

std::vector<std::string> copy_lines(const models::Calibration& c) {
  return {fmt::format("{:.2f} GB/s at {} B, {:.2f} GB/s at {} B (both ranks at once); {:.3f} us "
                      "per local operation",
                      c.memcpy_in_cache_GBps, kMemcpyInCache, c.memcpy_GBps, kLocalMax,
                      c.terms.local_op_s * 1e6)};
}

std::vector<std::string> concurrency_lines(const models::Calibration& c) {
  return {fmt::format("exchange ranges: {}", ranges_text(c.terms.exchange)),
          fmt::format("reducing exchange ranges: {}", ranges_text(c.terms.exchange_reduce))};
}

std::vector<std::string> overhead_lines(const models::Calibration& c) {
  return {fmt::format("o {:.3f} us per extra message in a step", c.terms.overhead_s * 1e6)};
}

std::vector<std::string> forward_lines(const models::Calibration& c) {
  std::string forward;
  for (std::size_t i = 0; i < c.terms.forward.size_B.size(); i += 4)
    forward += fmt::format("{}{} B: {:.3g} ns/B", forward.empty() ? "" : ", ",
                           c.terms.forward.size_B[i], c.terms.forward.s_per_B[i] * 1e9);
  return {fmt::format("forwarding adds (relay - ping-pong, per byte): {}",
                      forward.empty() ? "not measured" : forward)};
}

std::vector<std::string> staged_lines(const models::Calibration& c) {
  return {fmt::format("staged reducing exchange ranges: {}", ranges_text(c.terms.exchange_staged))};
}

std::vector<std::string> flight_lines(const models::Calibration& c) {
  return {fmt::format("pipelined ping-pong {:.3f} us: of the {:.3f} us one-way latency, {:.3f} us "
                      "in flight",
                      c.pipelined_s * 1e6, c.pingpong_s.empty() ? 0.0 : c.pingpong_s.front() * 1e6,
                      c.terms.flight_s * 1e6)};
}

std::vector<std::string> incast_lines(const models::Calibration& c) {
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

std::vector<std::string> probe_lines(const models::Calibration& c) {
  return {fmt::format("exchange step (the second forwarding) {:.3f} us at {} B, {:.3f} us at {} B",
                      c.terms.probe.small_s * 1e6, kProbeSmallBytes, c.terms.probe.large_s * 1e6,
                      kProbeLargeBytes)};
}

std::vector<std::string> buffering_lines(const models::Calibration& c) {
  std::string buffered;
  for (std::size_t i = 0; i < c.terms.buffered.size_B.size(); ++i)
    buffered += fmt::format("{}{} B: {:.2f}", buffered.empty() ? "" : ", ",
                            c.terms.buffered.size_B[i], c.terms.buffered.s_per_B[i]);
  return {fmt::format("send buffering (fan-out - 2 ping-pongs, in transfers of m): {}",
                      buffered.empty() ? "not measured (calibrate on 3 or more ranks)" : buffered)};
}

struct FitLines {
  Term term;
  std::vector<std::string> (*lines)(const models::Calibration&);
};

// Indexed by Term, as kTerms is: a term without its row here fails to compile.
constexpr FitLines kFitLines[] = {
    {Term::range, range_lines},         {Term::copy, copy_lines},
    {Term::concurrency, concurrency_lines}, {Term::overhead, overhead_lines},
    {Term::forward, forward_lines},     {Term::staged, staged_lines},
    {Term::flight, flight_lines},       {Term::incast, incast_lines},
    {Term::probe, probe_lines},         {Term::buffering, buffering_lines},
};
static_assert(std::size(kFitLines) == std::size(models::kTerms),
              "every term of kTerms prints its fit: add its row to kFitLines");
static_assert([] {
  for (std::size_t i = 0; i < std::size(kFitLines); ++i)
    if (kFitLines[i].term != models::kTerms[i].term) return false;
  return true;
}(), "kFitLines is in kTerms order");

}  // namespace

void warn_about_scatter(const Measurements& m) {
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
  if (!m.intra_alone_ping_s.empty())
    print_table("intra-node ping-pong, ranks 0 and 1 alone: half round trip", m.ping_B,
                m.intra_alone_ping_s);
  if (!m.intra_ping_s.empty())
    print_table(fmt::format("intra-node ping-pong, ranks jK and jK+1 of {} nodes at once: the "
                            "slowest pair's half round trip", m.intra_pairs).c_str(),
                m.ping_B, m.intra_ping_s);
  print_table("local copy on both ranks at once", m.t.copy_B, m.t.copy_s);
  print_table("local fp32-sum reduce on both ranks at once", m.t.reduce_B, m.t.reduce_s);
}

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
               "and {}, two nodes); intra-node ({} nodes' pairs at once): alpha {:.4g} s ({:.3f} "
               "us), beta {:.4g} s/B ({:.3f} GB/s)\n",
               c.ranks_per_node, c.ranks_per_node, c.intra_pairs, c.intra_alpha_s,
               c.intra_alpha_s * 1e6, c.intra_beta_s_per_B, 1e-9 / c.intra_beta_s_per_B);
  if (c.intra_alone_beta_s_per_B > 0)
    fmt::print("intra-node, ranks 0 and 1 alone (not used in pricing): alpha {:.4g} s ({:.3f} us), "
               "beta {:.4g} s/B ({:.3f} GB/s)\n",
               c.intra_alone_alpha_s, c.intra_alone_alpha_s * 1e6, c.intra_alone_beta_s_per_B,
               1e-9 / c.intra_alone_beta_s_per_B);
  for (const models::TermInfo& info : models::kTerms)
    for (const std::string& line : kFitLines[static_cast<std::size_t>(info.term)].lines(c))
      fmt::print("{}: {}\n", info.name, line);
}

void print_mode_kept(const Measurements& m) {
  fmt::print(
      "{}: kept to that mode: {} unit(s) measured again after a probe in another mode, "
      "{} restart(s) of the message sweep in a new mode, {} unit(s) kept out of mode\n",
      name(Term::probe), m.remeasured, m.restarts, m.off_mode);
  if (m.off_mode > 0)
    fmt::print(stderr,
               "collbench: warning: {} unit(s) of the calibration ran in another coherence mode "
               "than its probe (the mode kept changing); term probe will misprice rows by them: "
               "calibrate again\n",
               m.off_mode);
}

}  // namespace cb::calibrate
