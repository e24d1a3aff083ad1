// How close each measured shared-memory row came to its schedule's
// memory-traffic bound (memory_bound.hpp): `collbench fit` writes them as
// memory-bound.csv, which the study's report only formats.
#pragma once

#include <string>
#include <vector>

#include "models/memory_bound.hpp"
#include "models/results_csv.hpp"

namespace cb::models {

// The transport whose rows the bound describes: the IPC transport's host
// backend (the CUDA backend's memory is the GPU's, another bandwidth).
inline constexpr char kSharedMemoryTransport[] = "ipc-host";

// Rows from this size (BYTES, S as the results CSV defines it) up are judged
// against the target: below it a rank's buffers fit in this machine's caches
// and the bound, which counts every byte from memory, does not apply.
inline constexpr double kOutOfCacheBytes = 16.0 * 1024 * 1024;
// The target (issue 32): a row out of cache reaches at least this fraction
// of its bound (bound time / measured median time).
inline constexpr double kMemoryBoundTarget = 0.8;

struct MemoryRow {
  const Measurement* m = nullptr;
  MemoryTraffic traffic;  // along the critical path of every rank's schedule
  double memory_Bps = 0;  // reads + writes per second (memory_Bps_of_copy)
  double bound_s = 0;
  double fraction = 0;    // bound_s / m->time_s
  bool out_of_cache = false;
};

// One row per measured schedule row (library baselines left out) of
// kSharedMemoryTransport, with the copy bandwidth of that transport's
// calibration (copy_GBps_of, GB/s; 0 = none: no rows).
std::vector<MemoryRow> memory_rows(const ResultsFile& results, double copy_GBps);

// memory-bound.csv (harness/report/CSV.md, "Memory-bound CSV").
std::string memory_rows_csv(const std::vector<MemoryRow>& rows);

}  // namespace cb::models
