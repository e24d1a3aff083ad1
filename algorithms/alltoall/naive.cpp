// Algorithm: direct all-to-all: every rank sends block q of its input to rank
// q, for every q, in one round.
// Restrictions: none (any p, any count).
// Idea: one round, all messages posted at once; the block from rank q lands at
// output block q, the own block is a local copy. In place, receives would
// overwrite blocks still being sent, so a local step 0 first copies the p-1
// outgoing blocks aside (common/in_place.hpp) and the sends read the copy.
// Scratch: (p-1)·n elements in place, none out of place.
//
// Cost (n = count = elements per block, s = element size):
//   Cost = (p-1)·α + (p-1)·n·s·β
// as in algorithms/README.md ((p-1)/p of the p·n elements each rank sends; the one
// round posts p-1 messages and the convention counts them all); 0 for p = 1.
#include "algorithms/algorithm.hpp"
#include "algorithms/common/direct.hpp"
#include "algorithms/common/in_place.hpp"

namespace cb::alltoall {

void naive(const CollParams& params, ScheduleBuilder& b) {
  AlltoallSendBlocks from(params);
  from.snapshot_step(b);
  b.step();
  direct_round(
      params.p, params.rank, [&](int q) { b.send(q, from.of(q)); },
      [&](int q) { b.recv(q, alltoall_out_block(params, q)); });
  alltoall_keep_own(b, params);
}

Cost naive_cost(const CollParams& params) { return direct_cost(params, false); }

}  // namespace cb::alltoall
