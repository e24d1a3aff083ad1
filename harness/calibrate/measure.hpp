// Running the calibration's microbenchmarks (microbenchmarks.hpp) through a
// transport and fitting the model's parameters to them: what `collbench
// calibrate` measures, without its flags, console or file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "transports/contract/transport_spec.hpp"
#include "harness/runtime/group.hpp"
#include "models/calibration.hpp"

namespace cb::calibrate {

// What the pair measured, in seconds net of an empty run (ranks other than
// 0 and 1 keep them empty): the ping-pong sizes, which also size the relay
// and the exchanges, and everything fit_terms takes.
struct Measurements {
  std::vector<double> ping_B;
  models::TermMeasurements t;
  double pipelined_s = 0;  // flight: the pipelined ping-pong, net of the empty run
  // The memory copy (kMemorySlices copies of kMemorySlice bytes), net of the
  // empty run, every rank at once.
  double memory_copy_s = 0;
  // incast: fan-in step times net of the empty run on all ranks, k-major over
  // fanin_k and fanin_B (empty on 2 ranks), and the same for the k-way
  // exchange among k + 1 ranks.
  std::vector<double> fanin_k, fanin_B, fanin_s, fanin_exchange_s;
  // buffering: fan-out times net of the empty run on all ranks, at fanout_B.
  std::vector<double> fanout_B, fanout_s;
  models::ModeProbe probe;  // probe: the mode probe all of the above were measured in
  // The raw lists of terms whose rows (term_table.cpp) measure them straight
  // into the calibration file's fields; their fits copy them over. The
  // terms above keep theirs in the fields their fits take.
  models::TermRecords records;
  // Two levels (empty on one level): the intra-node ping-pong's half round
  // trips at ping_B with every node's pair at once (the slowest pair's;
  // intra_pairs of them), and with ranks 0 and 1 alone.
  std::vector<double> intra_ping_s, intra_alone_ping_s;
  int intra_pairs = 0;
  // probe: how the calibration kept to that mode (ModeGuard): units measured
  // again, restarts of the message sweep in a new mode, and units kept
  // although the probe after them was in another mode.
  int remeasured = 0, restarts = 0, off_mode = 0;
};

// Every microbenchmark but the fan-in and fan-out, on `pair` (ranks 0 and 1
// of the world), ping-pongs and exchanges up to `max_ping` BYTES, kept to
// one coherence mode (term `probe`). `root`: this rank is rank 0 (warnings
// are its to print). Collective over the pair; a signal throws Interrupted.
Measurements measure_pair(const TransportSpec& t, const std::string& label,
                          std::size_t max_ping, Group& pair, bool root);

// Terms `incast` and `buffering` on every rank of `all` (3 or more): the
// fan-in and the k-way exchange for k = 2 .. size-1 senders at kFanInMin ..
// min(max_ping, kFanInMax) BYTES, and the fan-out at kFanOutMin .. the
// same, net of an empty run on the same group, into `m` (rank 0's values).
void measure_fan_in(const TransportSpec& t, const std::string& label, std::size_t max_ping,
                    Group& all, Measurements& m);

// The intra-node ping-pong (two levels) on `pairs`: a group of 2N ranks
// whose ranks 2j and 2j+1 share node j (rank_plan.hpp, intra_pairs), every
// pair ping-ponging at once (paired_ping_pong); half round trips of the
// slowest pair at `sizes` BYTES (which every rank must hold), net of an
// empty run on the same group; rank 0's values. A group of 2 is ranks 0 and
// 1 alone.
//
// Why every node at once: a collective's intra-node phase runs on every
// node at the same time, and the level's alpha and beta are what each pair
// gets then. Nodes of a real cluster do not share cores, so the two agree;
// the testbed's hosts share this machine's cores, and with one pair alone
// (the others asleep) the node level read about 4x the rate the 3 x 2
// sweep's intra-node phases moved (results/two-level-3x2-2ms-200Mbit,
// docs/two-level.md): it priced every hierarchical row low.
std::vector<double> measure_intra(const TransportSpec& t, const std::string& label,
                                  Group& pairs, const std::vector<double>& sizes);

// The calibration fitted to the measurements (rank 0's): the baseline and
// every term measured, transport `label`, on 2 ranks; with `ranks_per_node`
// K > 0 (two levels) also K and the intra-node alpha and beta fitted to
// m.intra_ping_s (and, when measured, to m.intra_alone_ping_s). The run's metadata (host, timestamp, versions) is left
// for the caller.
models::Calibration calibration_of(const Measurements& m, const std::string& label,
                                   int ranks_per_node);

}  // namespace cb::calibrate
