// The reference executor: runs the schedules of all p ranks in one process on
// real buffers, following schedule.hpp's step semantics literally. It is the
// oracle the MPI, IPC and simulator transports are tested against, so it is
// written to be obviously right, not fast.
//
// Per global step s, for every rank: all sends of step s (of every rank) are
// snapshotted first (a send reads its source as it stands when the step
// starts); each rank's receives then take their messages FIFO per (source,
// destination) pair; copy-receives land directly, reduce-receives are applied
// in list order (dst = dst op message); then the rank's local ops run in list
// order. Each rank's memory is a RankMemory (transports/common/): one
// allocation laid out as buffer_layout() says, in place with input and
// output as views of the same bytes; memory that holds no data yet starts
// filled with the byte kPoison, so reading it gives visibly wrong results.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/common/rank_memory.hpp"

namespace cb {

// inputs[r] holds rank r's input view: all_ranks[r].input_count() elements of
// the schedule's datatype, as bytes. Returns each rank's output view
// (output_count() elements) as bytes. Throws InternalError when the schedules
// do not fit together (a message without a receive, a size mismatch ...);
// run validate() first for a precise diagnosis.
std::vector<std::vector<std::byte>> run_reference(std::span<const Schedule> all_ranks,
                                                  std::span<const std::vector<std::byte>> inputs);

}  // namespace cb
