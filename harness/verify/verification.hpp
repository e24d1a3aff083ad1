// Verification of one case on its Operation, like nccl-tests' -c: fresh
// input from harness/verify (a seed not used for timing), one run, and the
// wrong elements of every rank's output counted against the expected output.
// A float all-reduce (sum, avg, prod, p >= 3) runs once more on verify's
// order probe, and every element whose bits differ from rank 0's counts as
// wrong too: ranks must agree bit for bit, not only come close to the
// reference (a digest per rank is compared; outputs move only on a mismatch).
#pragma once

#include <cstdint>

#include "harness/runtime/group.hpp"
#include "transports/contract/measure.hpp"

namespace cb {

// Writes rank `rank`'s input of case c for `seed` into op.
void write_case_input(Operation& op, const Case& c, int rank, std::uint64_t seed);

// Collective over `group`: write fresh input, barrier, run once, compare
// (and the order probe's run, above).
// Returns the wrong elements summed over ranks (valid on rank 0).
std::uint64_t verify_case(Operation& op, const Case& c, Group& group, std::uint64_t seed);

}  // namespace cb
