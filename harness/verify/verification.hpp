// Verification of one case on its Operation, like nccl-tests' -c: fresh
// input from harness/verify (a seed not used for timing), one run, and the
// wrong elements of every rank's output counted against the expected output.
#pragma once

#include <cstdint>

#include "harness/runtime/group.hpp"
#include "harness/sweep/measure.hpp"

namespace cb {

// Writes rank `rank`'s input of case c for `seed` into op.
void write_case_input(Operation& op, const Case& c, int rank, std::uint64_t seed);

// Collective over `group`: write fresh input, barrier, run once, compare.
// Returns the wrong elements summed over ranks (valid on rank 0).
std::uint64_t verify_case(Operation& op, const Case& c, Group& group, std::uint64_t seed);

}  // namespace cb
