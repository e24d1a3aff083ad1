// One algorithm case end to end: every rank's schedule, the validator, the
// reference executor on verifiable inputs (harness/verify), and the
// comparison with the collective's straightforward reference result. A
// failing case's schedule set is dumped as JSON (algorithms/schedule_json.hpp)
// so it can be replayed (build-dir/tests/algorithms/replay_schedules FILE),
// and the message names the file.
#pragma once

#include <string>

#include "algorithms/registry.hpp"
#include "transports/reference/verify.hpp"

namespace cb::test {

struct AlgoCase {
  const AlgorithmEntry* entry = nullptr;
  int p = 1;
  std::size_t count = 0;  // elements, the collective's count (Schedule::count)
  DataType dtype = DataType::fp32;
  ReduceOp op = ReduceOp::sum;
  bool in_place = false;
  InputMode mode = InputMode::exact;
  std::size_t segment_bytes = 0;  // CollParams::segment_bytes (0: the default)
  int ranks_per_node = 0;         // CollParams::ranks_per_node (0: one node)
};

std::string describe(const AlgoCase& c);

// Empty when the case passes; otherwise one paragraph saying what went wrong
// (validator message, executor error, or the first wrong element per rank)
// and where the schedules were dumped. Exact inputs compare bit-exactly
// (count_wrong); random float inputs within verify's error_bounds.
std::string run_case(const AlgoCase& c);

}  // namespace cb::test
