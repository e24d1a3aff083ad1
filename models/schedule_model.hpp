// The calibrated model priced on the schedules themselves: the closed forms
// count rounds, bytes and reduced bytes, but not the message sizes, the
// local copies, the working set or whether a rank sends and receives at once,
// which the richer terms (terms.hpp) need. The schedules know all of them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"
#include "models/model_params.hpp"
#include "models/predict.hpp"
#include "models/terms.hpp"

namespace cb::models {

// What one rank does in one step. Counts are messages, sizes BYTES.
struct RankStep {
  double sends = 0, recvs = 0;
  double out_B = 0, in_B = 0;  // bytes sent, bytes received
  double reduced_B = 0;        // reduce-receives plus local reduces
  double copied_B = 0;         // local copies (staging, out-of-place copy-in)
  double local_ops = 0;        // local copies and reduces (not the avg division)
  double recv_reduced_B = 0;   // the part of reduced_B that reduce-receives bring
  double forwarded_B = 0;      // bytes sent that this rank wrote in an earlier step
  // Staged reduces: local reduces of a scratch region received in the same
  // step (bytes), the local copies into their destinations (bytes), and the
  // number of those local ops.
  double staged_reduced_B = 0, staged_copied_B = 0, staged_ops = 0;
  // The ranks whose messages this rank receives in this step, each once,
  // ascending: the dependencies term `flight` follows from step to step.
  std::vector<int> from = {};
  // Bytes received from each rank of `from`, in its order, for the
  // receiver's link that `flight` shares between senders (empty: in_B split
  // evenly; left empty with one sender, whose bytes are in_B).
  std::vector<double> from_B = {};
};

struct ScheduleFeatures {
  std::vector<std::vector<RankStep>> steps;  // [step][rank]
  std::vector<double> working_set_B;         // per rank: bytes of its buffers (input, output, scratch)
};

// all_ranks[r] is rank r's whole schedule.
ScheduleFeatures schedule_features(std::span<const Schedule> all_ranks);
// The features of `algo` for `count` elements (generates every rank's schedule:
// cost grows with p times the step count).
ScheduleFeatures features_for(const AlgorithmEntry& algo, const Scenario& s, std::uint64_t count);
// The same for generator parameters as given (a pipelining segment included).
ScheduleFeatures features_for(const AlgorithmEntry& algo, const CollParams& params);

// The largest p that predict, map and run --transport sim price with terms:
// every rank's schedule is generated and kept, so memory and time grow with
// p times the step count.
inline constexpr int kMaxPricedRanks = 1024;

// Predicted seconds with the terms `use` (terms.hpp). With no term this is
// the textbook model on schedule_cost()'s convention (per step, the largest
// message count, wire bytes and reduced bytes over ranks, each priced alone),
// which equals the closed form. With terms, each rank's step is priced as a
// whole and the step takes the slowest rank:
//   latency = k * alpha(m)           k = max(#sends, #receives), m = wire bytes / k
//           = alpha(m) + (k-1) * o   with `overhead`
//   wire    = beta(m) * max(bytes sent, bytes received)
//             alpha(m), beta(m): the one-way ping-pong's range holding m with
//             `range`, the exchange's range when the rank also sends and receives
//             in the step with `concurrency`, else the baseline alpha and beta; with
//             `concurrency`, a step that sends and reduce-receives everything it
//             receives takes the reducing exchange's range, which includes
//             the reduce of those bytes; with `staged`, one that stages
//             everything it receives (scratch, copy own part, reduce)
//             takes the staged exchange's range, which includes those
//             copies and reduces
//   local   = gamma * reduced   or, with `copy`, gamma(ws) * reduced + delta(ws) * copied
//             + local_op_s * (local copies and reduces)
//   forward = with `forward`, forward(m) * (bytes sent that the rank wrote in an
//             earlier step), added to the sender's step (it waits for them
//             to be read)
//   incast  = with `incast`, incast(k) * bytes received, when the rank receives
//             from k >= 2 distinct peers in the step (k past the measured
//             ones takes the nearest measured k; the k-way exchange's value
//             when the rank also sends in the step, the fan-in's when not),
//             added to the receiver's step
// and with `range` the run's fixed cost run_s is added once.
// With `flight`, latency off the critical path, the steps are not global rounds:
// each rank keeps its own clock (seconds from the collective's start) and
// a rank's step ends when its own work is done and what it receives has
// arrived, so a message that depends on nothing the receiver waits for
// flies while the receiver is busy elsewhere. Per rank r at step s, with
// clock S_r, the rank's priced latency, wire and forward as above (C_r) and
// flight F = terms.flight_s, the part of a one-way latency the sender does
// not spend (capped at the rank's latency):
//   r's messages leave from  L_r = S_r + latency(sends)
//   and arrive alone at     A_r = L_r + beta(m) * bytes sent + forward
//   r's step ends at        max(S_r + C'_r - F, latest arrival of what r receives) + local
// where latency(sends) prices r's sends alone (alpha + (sends-1)*o with `overhead`,
// sends * alpha without), and C'_r is C_r with its wire priced on
// max(bytes sent, bytes received still on the way at S_r): a message whose
// bytes crossed r's link while r was busy costs r's step no link time
// (each message's bytes are taken to cross evenly from its L to its
// arrival). An early message shares its receiver's link, though: every
// message into r is a transfer on r's link from its sender's L with
// beta(m) * its bytes of work, the transfers that overlap share the link
// equally (shared_link.hpp, as TCP flows roughly do), and a message arrives
// as much after A as the sharing ends it later than alone. One sender's
// messages to r follow each other. Arrivals move clocks, which move
// transfers: the clocks are priced again until the delays settle (at most 8
// passes; with no overlap, one). The collective takes the latest clock.
// With every rank's steps on one dependency chain (ring, rhd at a power of
// two) this equals the step-synchronous price. Without local work it is
// never larger except where an early message shares a link (the fold of
// butterfly and rhd at p not a power of two: the idle core rank's message
// meets the folded vector at the core's link, 4 transfers where the
// step-synchronous price has 3); with local work it can be: a receiver's
// reduce starts when its data has arrived, which the step-synchronous price
// lets overlap a slower rank's message.
// With `buffering`, send buffering (only with `flight`: it moves clocks), the fraction
// b(m) = terms.buffered(m) of a rank's bytes sent that the transport
// buffers leaves its step's wire: C'_r prices max(bytes sent x (1 - b),
// bytes received still on the way) at beta(m), so a rank that only sends
// goes on to its next step before those bytes have crossed (they still
// arrive at A_r). Its next messages then overlap them on its own link:
// every message out of a rank that sends to two or more peers over the
// schedule is also a transfer on its sender's link, shared as a receiver's
// link is, and arrives as much later as the later of its two links ends it
// (the broadcast of a binomial tree: the root's second child's message
// shares the root's link with the first's, which the first child forwards a
// transfer later than without buffering; tests/models/terms_test.cpp).
// With `probe`, the mode probe, `base` and `terms` are first moved into the
// mode of the measured row whose probe is `row` (in_mode, mode_probe.hpp);
// without a measured `row` (predict, map, run --transport sim: no row was
// measured) `probe` changes nothing.
// A term the calibration did not measure is left out (terms.has()).
double priced_seconds(const ScheduleFeatures& f, const ModelParams& base, const ModelTerms& terms,
                      TermSet use, const ModeProbe& row = {});

// Under a process arrival pattern (docs/arrival.md): rank r's clock starts
// at arrival_s[r] (SECONDS, one per rank) and the per-rank clocks of `flight`
// carry each rank's lateness along the schedule's dependencies, whichever
// terms `use` names: a rank's step starts when it has arrived and finished
// its previous step, and ends when its own work is done and what it
// receives has arrived. Without `flight` in `use` the clocks run without flight
// time and without shared links (the steps are priced as the terms say);
// with every arrival 0 and `flight` this is priced_seconds's clock. Returns when
// each rank finished, SECONDS on the arrivals' origin (the run's fixed cost
// of `range` included). `probe` needs a measured row and is left out.
std::vector<double> priced_finish_s(const ScheduleFeatures& f, const ModelParams& base,
                                    const ModelTerms& terms, TermSet use,
                                    std::span<const double> arrival_s);

// The messages of one rank's step, as same_work compares them (counts are
// messages, sizes BYTES): the part of RankStep that needs no history of
// earlier steps, so it is cheap to build for many ranks and counts.
struct StepWork {
  double sends = 0, recvs = 0;
  double out_B = 0, in_B = 0;
  double reduced_B = 0, recv_reduced_B = 0;
  friend bool operator==(const StepWork&, const StepWork&) = default;
};
StepWork step_work(const Step& st, DataType dtype);

// Per rank (in the order given), its steps' StepWork.
using ScheduleWork = std::vector<std::vector<StepWork>>;

// True when the two schedules exchange the same messages: equal message
// counts, bytes and reduced bytes per rank and step (local copies and
// buffer sizes may differ), over as many steps as the longest rank has.
// Such algorithms cannot be told apart by their communication at that p, so
// crossovers never pair them.
bool same_work(const ScheduleWork& a, const ScheduleWork& b);

// The ranks whose schedules identical_schedule_groups compares at p ranks:
// every rank up to kExactComparedRanks (the study, the testbed and the
// simulator's sweeps up to 64 ranks: exact), beyond that the first and last
// 16 and 32 spread evenly between, so that grouping costs O(p) per
// algorithm and count instead of O(p^2) (a results file may hold hundreds
// of rank counts: fit at 10^6 rows over p = 2..647 did not finish).
inline constexpr int kExactComparedRanks = 64;
std::vector<int> compared_ranks(int p);

// Crossover groups: for each entry, the index of the first entry whose
// schedules do the same_work at both lo_count and hi_count (itself when
// none), on compared_ranks(p). Entries that are nullptr (library baselines)
// or have no generator are groups of their own.
std::vector<std::size_t> identical_schedule_groups(const std::vector<const AlgorithmEntry*>& entries,
                                                   const Scenario& s, std::uint64_t lo_count,
                                                   std::uint64_t hi_count);

}  // namespace cb::models
