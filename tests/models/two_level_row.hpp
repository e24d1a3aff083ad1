// A hand-made all-reduce row measured on two levels, for the tests of the
// two-level grades and crossovers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "algorithms/registry.hpp"
#include "models/results_csv.hpp"

namespace cb::models {

// `algo` at `bytes` (S) measured at `t` seconds with a 95% CI of +-1%, over MPI at
// p ranks, k per node, fp32 sum.
inline Measurement two_level_row(std::string_view algo, std::uint64_t bytes, double t, int p = 6,
                                 int k = 2) {
  Measurement m;
  m.transport = "mpi";
  m.algorithm = std::string(algo);
  m.entry = &find_algorithm(Collective::allreduce, algo);
  m.scenario.coll = Collective::allreduce;
  m.scenario.p = p;
  m.scenario.ranks_per_node = k;
  m.has_op = true;
  m.bytes = bytes;
  m.count = bytes / 4;
  m.time_s = t;
  m.ci_lo_s = 0.99 * t;
  m.ci_hi_s = 1.01 * t;
  return m;
}

}  // namespace cb::models
