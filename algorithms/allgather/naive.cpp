// Algorithm: direct all-gather: every rank sends its block to every other
// rank in one round.
// Restrictions: none (any p, any count).
// Idea: one round, all messages posted at once; block q lands at output block
// q. The rank's own block is copied locally (in place it is already there).
//
// Cost (n = count = elements per block, s = element size):
//   Cost = (p-1)·α + (p-1)·n·s·β
// i.e. algorithms/README.md's direct row, (p-1)/p of the p·n-element output for β,
// except α: the one round posts p-1 messages and the convention counts them
// all; 0 for p = 1.
#include "algorithms/algorithm.hpp"
#include "algorithms/common/in_place.hpp"

namespace cb::allgather {

void naive(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region in{kInput, 0, n};
  auto block = [&](int q) { return Region{kOutput, static_cast<std::size_t>(q) * n, n}; };
  const bool own_in_place = same_memory(params, in, block(r));
  b.step();
  for (int i = 1; i < p; ++i) b.send((r + i) % p, in);
  for (int i = 1; i < p; ++i) b.recv((r - i + p) % p, block((r - i + p) % p));
  if (!own_in_place) b.copy(in, block(r));
}

Cost naive_cost(const CollParams& params) {
  const double others = params.p - 1;
  return {others, others * static_cast<double>(params.count * params.elem_size()), 0};
}

}  // namespace cb::allgather
