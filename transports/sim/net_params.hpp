// The simulated network: what a message, a reduction and a rank cost, in SI
// units (seconds, bytes), and how users spell those numbers on the command line.
//
// Defaults (documented in `collbench run --help` and transports/sim/README.md):
//   alpha = 2 us per message, beta = 1/(10 GB/s) = 1e-10 s/B,
//   gamma = 1/(20 GB/s) = 5e-11 s per reduced byte; every refinement off.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cb::sim {

inline constexpr int kMaxRanks = 1 << 20;  // 1,048,576

struct NetworkParams {
  double alpha_s = 2e-6;          // seconds per message
  double beta_s_per_B = 1e-10;    // seconds per byte on the wire (10 GB/s)
  double gamma_s_per_B = 5e-11;   // seconds per byte reduced locally (20 GB/s)

  // LogGP-style CPU overhead o (seconds) per message at each end: the sender's
  // CPU spends o posting each send before its port may start it, the
  // receiver's CPU spends o on each delivered message. 0 = off.
  double overhead_s = 0;

  // Two-level topology: ranks r and q share a node when r / K == q / K, and
  // messages between them cost intra_alpha + bytes * intra_beta instead.
  // 0 = one flat network.
  int ranks_per_node = 0;
  double intra_alpha_s = 5e-7;
  double intra_beta_s_per_B = 2e-11;
  // With a topology, the network's LogGP gap g (models::ModelParams::
  // network_gap_s, the same rule): an inter-node message holds its ports g
  // seconds plus its bytes' beta and arrives alpha - g after, so a rank's
  // messages in one step overlap their latency. Negative: each holds its
  // ports for its whole alpha (single port). 0 <= g <= alpha when set.
  double network_gap_s = -1;

  // Stragglers, drawn from `seed` so runs repeat exactly. skew: rank r enters
  // the collective at a uniform time in [0, skew) and its own clock starts
  // then. noise: after every step each rank idles for an exponentially
  // distributed time of this mean (OS noise, a slow core). 0 = off.
  double skew_s = 0;
  double noise_s = 0;
  std::uint64_t seed = 1;

  // Round-synchronous mode: no rank starts step s+1 before every rank has
  // finished step s (a free barrier between global rounds). Off = the
  // asynchronous model, where a rank only waits for the peers it exchanges with.
  bool round_synchronous = false;
};

// Throws cb::UsageError (one line) when a value is out of range: alpha and beta
// must be > 0, gamma, o, skew, noise >= 0, intra alpha/beta > 0 when a
// topology is set, ranks_per_node >= 0. Every value must be finite.
void validate(const NetworkParams& net);

// "3.7e-6", "3.7us", "3.7µs", "250ns", "2ms", "1s", "1ps" -> seconds.
// `what` names the flag in the error message.
double parse_seconds(std::string_view text, std::string_view what);

// Seconds per byte: a plain number ("4.35e-10") or a time per byte
// ("0.435ns", "0.435ns/B").
double parse_seconds_per_byte(std::string_view text, std::string_view what);

// Bytes per second: "2.3GB/s", "11 GB/s", "800MB/s", "25Gbit/s", "1.5GiB/s" or a
// plain number of bytes per second ("2.3e9"). K/M/G/T = 1e3..1e12, Ki/Mi/Gi/Ti
// = powers of 1024, "bit" divides by 8.
double parse_bandwidth(std::string_view text, std::string_view what);

// One line for logs and table headers: "alpha=2us beta=0.1ns/B (10 GB/s) ...".
std::string describe(const NetworkParams& net);

}  // namespace cb::sim
