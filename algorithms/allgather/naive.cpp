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
#include "algorithms/common/direct.hpp"
#include "algorithms/common/in_place.hpp"

namespace cb::allgather {

void naive(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region in{kInput, 0, n};
  auto block = [&](int q) { return Region{kOutput, static_cast<std::size_t>(q) * n, n}; };
  const bool own_in_place = same_memory(params, in, block(r));
  b.step();
  direct_round(p, r, [&](int q) { b.send(q, in); }, [&](int q) { b.recv(q, block(q)); });
  if (!own_in_place) b.copy(in, block(r));
}

Cost naive_cost(const CollParams& params) { return direct_cost(params, false); }

}  // namespace cb::allgather
