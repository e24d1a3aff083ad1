// Algorithm: pairwise-exchange reduce-scatter.
// Restrictions: none (any p, any count; needs a commutative op, which every
// op here is).
// Idea: p-1 rounds; in round i (1..p-1) rank r sends its input block for rank
// r+i to r+i and reduces into its output the block that rank r-i sends it
// (indices mod p), so every round each rank sends and receives one block.
// Out of place, a local step 0 first copies the rank's own input block into
// the output (in place the output already is that block).
//
// Cost (n = count = elements per block, s = element size):
//   Cost = (p-1)·α + (p-1)·n·s·β + (p-1)·n·s·γ
// as in algorithms/README.md ((p-1)/p of the p·n-element input); 0 for p = 1.
#include "algorithms/common/direct.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/algorithm.hpp"

namespace cb::reduce_scatter {

void pairwise(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  auto block = [&](int q) { return Region{kInput, static_cast<std::size_t>(q) * n, n}; };
  const Region out{kOutput, 0, n};
  copy_step_unless_same(b, params, block(r), out);
  b.for_steps(static_cast<std::uint64_t>(p - 1), [&](std::uint64_t k) {
    const int i = static_cast<int>(k) + 1;
    b.send((r + i) % p, block((r + i) % p));
    b.recv_reduce((r - i + p) % p, out);
  });
}

Cost pairwise_cost(const CollParams& params) { return direct_cost(params, true); }

}  // namespace cb::reduce_scatter
