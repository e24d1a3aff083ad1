#include "harness/calibrate/console.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "harness/calibrate/microbenchmarks.hpp"
#include "harness/calibrate/term_table.hpp"
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

// A "k, time(us)" table (k messages or k local copies in one step).
void print_count_table(const std::string& title, const std::vector<double>& k,
                       const std::vector<double>& seconds) {
  fmt::print("# {}\n{:>12} {:>12}\n", title, "k", "time(us)");
  for (std::size_t i = 0; i < k.size(); ++i)
    fmt::print("{:>12} {:>12.3f}\n", k[i], seconds[i] * 1e6);
}

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
    for (const std::string& line : term_calibration(info.term).lines(c))
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
