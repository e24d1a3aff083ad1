// The calibrated model's terms beyond alpha-beta-gamma, each one a measurable
// cause with its own microbenchmark in `collbench calibrate` (never fitted
// from the collectives it predicts):
//  (a) protocol and cache regimes: alpha and beta per message-size range,
//      from the ping-pong size sweep split at its detected knees, after
//      subtracting the time of an empty run timed the same way (barrier exit
//      skew and start-up), which is charged once per collective instead;
//  (b) local memory traffic: delta, the seconds per byte of a local copy, and
//      the reduce cost per byte, both as functions of the working set (bytes
//      of the rank's buffers), from copy and reduce calibrations with every
//      rank working at once, plus a fixed cost per local operation (the slope
//      of k 8-byte copies in one step over k);
//  (c) concurrency: alpha and beta per size range for a rank that sends and
//      receives in the same step (both directions streaming at once), from a
//      size sweep of a pairwise exchange, and of the same exchange reducing
//      what it receives (priced as one: a transport may fuse the reduce into
//      the receive, as IPC does);
//  (d) LogGP overhead o: messages a rank posts together in one step overlap
//      their latency; each one after the first costs o (seconds), the slope
//      of a ping-pong of k small messages per direction over k;
//  (e) forwarding: a message whose bytes the sender itself wrote earlier in
//      the collective (received, reduced or packed by a local copy) is read
//      while those lines are still dirty in the sender's cache, which costs
//      more than sending untouched input (over shared memory the receiver
//      pulls them from the other core). The extra seconds per byte by
//      message size, from a relay ping-pong (each rank sends back the bytes
//      it just received) against the plain ping-pong;
//  (f) staged reduces: the exchange as message-passing schedules write it,
//      receiving into scratch, copying the own part into the destination
//      and reducing the scratch into it, priced as one step from its own
//      size sweep (a transport may skip the staging copy, as IPC's
//      receive-reduce fusion does, which (b) and (c) would count);
//  (g) latency off the critical path: most of a one-way latency is spent in
//      flight, not by the sender, so a message whose receiver is busy with
//      another step, or whose sender has nothing to wait for, overlaps its
//      latency with that work. The flight time F (seconds) is the 8-byte
//      half round trip less what a sender spends per message: from a
//      pipelined ping-pong (two one-way 8-byte messages in consecutive
//      steps, then one back), which takes 2 alpha + (alpha - F); steps that
//      serialized would take 3 alpha. The schedule is then priced by
//      per-rank clocks along its dependencies (schedule_model.hpp);
//  (h) incast: k >= 2 ranks sending to one rank in the same step share its
//      link, and over TCP their flows contend for the receiver's queue
//      (drops, retransmits, uneven shares), so the k messages take longer
//      than k times the bytes at the ping-pong's beta. The extra seconds
//      per received byte by k, from a fan-in microbenchmark (k senders each
//      send m bytes to one receiver in one step, at the large ping-pong
//      sizes) against the ping-pong, and for a receiver that sends to its
//      k peers in the same step (its outgoing data then shares its link
//      with the acknowledgements of what comes in) from a k-way exchange
//      among k + 1 ranks; measured only when calibrate runs on 3 or more
//      ranks;
//  (j) send buffering: a transport may take a send's bytes into its own
//      buffers (TCP's socket buffer, which the testbed lets grow to 64 MiB)
//      and complete the send before they cross the link, so a rank that
//      sends again in its next step (a tree's root, one child after the
//      other) has both messages on its link at once, and the first arrives
//      later. The fraction of an m-byte message buffered, by m, from a
//      fan-out (rank 0 sends m bytes to rank 1, then m to rank 2 while rank
//      1 sends them back to it): 2 one-way times when rank 0's first send
//      waits for its bytes to cross, up to 3 transfers when it does not;
//      measured only when calibrate runs on 3 or more ranks;
//  (i) mode probe: on a VM whose cross-core communication switches between
//      coherence modes (fast and slow, 3-8x apart) between launches and
//      between configurations of one launch, one calibration holds for only
//      some of what it is judged on. The same short probe (an 8-byte and a
//      256 KiB exchange step, harness/sweep/mode_probe.hpp) is taken beside
//      the calibration and right before every measured configuration; a
//      row is priced with the messages' latencies scaled by the ratio of
//      the small probes and what forwarding and incast add per byte by that
//      of the large ones (models/mode_probe.hpp says which are which and
//      why). Without a probe
//      on the row or in the calibration it changes nothing, so it is a
//      no-op for predict, map and run --transport sim, which have no
//      measured row.
// Pricing a schedule with them: models/schedule_model.hpp.
#pragma once

#include <string>
#include <vector>

namespace cb::models {

// One size range of a piecewise line t(m) = alpha_s + beta_s_per_B * m, for
// messages of from_B bytes up to the next range's from_B.
struct SizeRange {
  double from_B = 0;
  double alpha_s = 0;
  double beta_s_per_B = 0;
  friend bool operator==(const SizeRange&, const SizeRange&) = default;
};

// The range holding message size m (bytes): the last with from_B <= m, else
// the first. Empty ranges: nullptr.
const SizeRange* range_for(const std::vector<SizeRange>& ranges, double m);

// Per-byte cost (s/B) as a function of a size (bytes), interpolated linearly
// in log(size) between measured points and held constant beyond them.
struct Curve {
  std::vector<double> size_B;
  std::vector<double> s_per_B;
  bool empty() const { return size_B.empty(); }
  double at(double size) const;
  friend bool operator==(const Curve&, const Curve&) = default;
};

// The mode probe (term (i)): seconds per exchange step at 8 bytes and at
// 256 KiB, both ranks of each pair sending and receiving at once. 0 = not
// measured.
struct ModeProbe {
  double small_s = 0;
  double large_s = 0;
  bool measured() const { return small_s > 0 && large_s > 0; }
  friend bool operator==(const ModeProbe&, const ModeProbe&) = default;
};

struct ModelTerms {
  std::vector<SizeRange> oneway;    // (a) one message, one direction
  Curve copy;                       // (b) delta(working set), s/B copied
  Curve reduce;                     // (b) gamma(working set), s/B reduced
  std::vector<SizeRange> exchange;  // (c) sending and receiving at once
  std::vector<SizeRange> exchange_reduce;  // (c) the same, reducing what arrives
  std::vector<SizeRange> exchange_staged;  // (f) exchange staged: scratch, copy own, reduce
  double run_s = 0;                 // (a) one run's fixed cost, once per collective
  double local_op_s = 0;            // (b) fixed cost of one local copy or reduce
  double overhead_s = 0;            // (d) o per extra message in a step
  bool overhead_measured = false;
  Curve forward;                    // (e) extra s/B of forwarded bytes, by message size (B)
  double flight_s = 0;              // (g) F: seconds of a one-way latency spent in flight
  bool flight_measured = false;
  Curve incast;                     // (h) extra s/B received, by sender count k (size_B holds k)
  Curve incast_sending;             // (h) the same for a receiver sending to its k peers too
  ModeProbe probe;                  // (i) the mode probe taken beside the calibration
  // (j) the fraction (0..1, in s_per_B) of an m-byte send the transport
  // buffers, by m (size_B, bytes); held at the nearest measured size beyond them.
  Curve buffered;
  // Which terms the calibration measured (a file from an older collbench has
  // none: its model is the baseline).
  bool has(char term) const;
  friend bool operator==(const ModelTerms&, const ModelTerms&) = default;
};

// Which terms a prediction uses: a subset of kTermLetters. Ablations add them
// in order: "" (the alpha-beta-gamma baseline), "a", "ab", ..., "abcdefghij"; a
// level whose last letter the calibration lacks is left out, and a letter
// it lacks inside a level prices nothing (ModelTerms::has).
inline constexpr const char* kTermLetters = "abcdefghij";
inline constexpr const char* kTermLevels[] = {"",       "a",       "ab",       "abc",
                                              "abcd",   "abcde",   "abcdef",   "abcdefg",
                                              "abcdefgh", "abcdefghi", "abcdefghij"};
// One line per term for reports: what it prices and where it was measured.
std::string term_description(char term);

// "1024:3.1e-07:9.8e-11;65536:..." and back (calibration file cells).
std::string format_ranges(const std::vector<SizeRange>& ranges);
// Throws std::invalid_argument on malformed text.
std::vector<SizeRange> parse_ranges(const std::string& text);

// Size ranges from a size sweep: detect the knees (knees.hpp), then a robust
// relative line per segment. bytes ascending, seconds > 0.
std::vector<SizeRange> fit_ranges(const std::vector<double>& bytes,
                                  const std::vector<double>& seconds);

}  // namespace cb::models
