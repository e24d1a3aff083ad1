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
#include "algorithms/common/in_place.hpp"

namespace cb::alltoall {

void naive(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  auto out_block = [&](int q) { return Region{kOutput, static_cast<std::size_t>(q) * n, n}; };
  const Region own{kInput, static_cast<std::size_t>(r) * n, n};
  AlltoallSendBlocks from(params);
  if (from.needs_snapshot()) {
    b.step();
    from.snapshot(b);
  }
  b.step();
  for (int i = 1; i < p; ++i) b.send((r + i) % p, from.of((r + i) % p));
  for (int i = 1; i < p; ++i) b.recv((r - i + p) % p, out_block((r - i + p) % p));
  copy_unless_same(b, params, own, out_block(r));
}

Cost naive_cost(const CollParams& params) {
  const double others = params.p - 1;
  return {others, others * static_cast<double>(params.count * params.elem_size()), 0};
}

}  // namespace cb::alltoall
