// Algorithm: direct reduce-scatter: every rank sends block q of its input to
// rank q, for every q, in one round, and reduces the p-1 blocks it receives.
// Restrictions: none (any p, any count; the ops are commutative).
// Idea: one round, all messages posted at once. Out of place, a local step 0
// first copies the rank's own block into the output so every incoming block
// is reduced straight into it (in place the output already is that block).
//
// Cost (n = count = elements per block, s = element size):
//   Cost = (p-1)·α + (p-1)·n·s·β + (p-1)·n·s·γ
// i.e. algorithms/README.md's direct row, (p-1)/p of the p·n-element input for β
// and γ, except α: the one round posts p-1 messages and the convention counts
// them all; 0 for p = 1.
#include "algorithms/common/direct.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/algorithm.hpp"

namespace cb::reduce_scatter {

void naive(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  auto block = [&](int q) { return Region{kInput, static_cast<std::size_t>(q) * n, n}; };
  const Region out{kOutput, 0, n};
  copy_step_unless_same(b, params, block(r), out);
  b.step();
  direct_round(
      p, r, [&](int q) { b.send(q, block(q)); }, [&](int q) { b.recv_reduce(q, out); });
}

Cost naive_cost(const CollParams& params) { return direct_cost(params, true); }

}  // namespace cb::reduce_scatter
