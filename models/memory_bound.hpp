// The memory-traffic lower bound of a schedule run over shared memory: the
// bytes each rank must read and write in memory, and the time that takes at
// the memory's bandwidth. Beside the network lower bound (lower_bound.hpp),
// which bounds any algorithm on the wire, this one bounds one algorithm's
// schedule where no wire is crossed: on one node the messages are copies
// and every byte a rank copies or reduces is memory traffic.
//
// Counted as the IPC transport's host backend runs a schedule ("receiver
// pulls", transports/ipc/common/executor.hpp) with both fusions of
// algorithms/fuse.hpp, every op streaming its operands once (no reuse of a
// cache line between ops: out of cache), c = the op's bytes:
//   send                           nothing (its receiver reads the sender's memory)
//   copy-receive                   read c, write c; nothing when the staged copy is
//                                  fused into the local reduce that consumes it
//   reduce-receive, local reduce   read 2c, write c
//   local copy                     read c, write c
//   local copy + reduce of one     read 2c, write c (one pass D = A op X)
//   region in a row
//   average (the division by p)    read c, write c
// A write counts once: the write-allocate read a cached store adds is what
// non-temporal stores avoid, so it is not part of the bound.
//
// The bound follows the schedule's dependencies, not only the busiest rank:
// a rank's step streams after its previous step, and a receive's bytes (and
// the local ops after it: step semantics, schedule.hpp) after its sender
// finished the step before, when the sender's data is ready. Where phases
// run one rank after another (a tree's reduce, then its broadcast) the
// bytes along that chain add up, which no rank alone moves. Each rank
// streams at the per-rank rate measured with every rank streaming; a rank
// running alone may stream faster, so rows can exceed the bound there.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"
#include "models/predict.hpp"

namespace cb::models {

// BYTES one rank reads and writes over one whole collective.
struct MemoryTraffic {
  double read_B = 0;
  double written_B = 0;
  double total_B() const { return read_B + written_B; }
  MemoryTraffic& operator+=(const MemoryTraffic& o) {
    read_B += o.read_B;
    written_B += o.written_B;
    return *this;
  }
};

// One rank's traffic for its schedule `s`, all steps together.
MemoryTraffic memory_traffic(const Schedule& s);

// The traffic along the schedule's longest dependency chain (the
// header's rules) over every rank's schedule: at least the busiest rank's.
MemoryTraffic critical_path_traffic(std::span<const Schedule> all_ranks);

// The same for `algo` at `count` elements (generates every rank's schedule:
// cost grows with p times the step count).
MemoryTraffic critical_path_traffic(const AlgorithmEntry& algo, const Scenario& s,
                                    std::uint64_t count);

// The bound in SECONDS: the critical path's bytes at `memory_Bps`, the bytes
// read plus written per second one rank streams while every rank streams
// (BYTES per second; 0 or less gives NaN: no bandwidth known).
double memory_bound_s(const MemoryTraffic& t, double memory_Bps);

// The memory bandwidth of a calibration: calibrate's memory copy (GB/s of
// bytes copied, both ranks copying at once) reads and writes each byte it
// copies, so BYTES per second of traffic = 2 * 1e9 * copy_GBps; 0 when the
// calibration has no copy figure.
double memory_Bps_of_copy(double copy_GBps);

// The memory copy bandwidth of a parameter file, GB/s: its memory_GBps (a
// footprint past the caches), or in a calibration older than that column its
// memcpy_GBps (one 64 MiB copy repeated, partly in a large cache); 0 for a
// fit.csv or a calibration that measured neither. Throws UsageError naming
// the file when it cannot be read.
double copy_GBps_of(const std::string& path);

}  // namespace cb::models
