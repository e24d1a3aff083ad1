// Algorithm: direct all-reduce: every rank sends its whole vector to every
// other rank in one round and reduces the p vectors itself.
// Restrictions: none (any p, any count; the ops are commutative).
// Idea: one round, all messages posted at once. Every rank must end with the
// same bits, so every rank combines the p vectors in the same order,
// ((x0 (op) x1) (op) x2) ... (op) x(p-1), whatever its own rank: the p-1
// incoming vectors land in scratch ((p-1)·n elements) and the round's local
// ops fold them in rank order, the rank's own vector at its place. (Reducing
// each message straight into the own vector, as arrivals come, would give
// rank r the order r, r-1, ..., and values that cancel, 1e8 + 0.01 - 1e8,
// would then differ between ranks.) Ranks 0 and 1 start from their own
// vector (x1 (op) x0 has the bits of x0 (op) x1); the others copy x0 first.
// In place, a local step 0 first copies the vector aside: the round's sends
// read it while the local ops rewrite the output.
//
// Cost (n = count, s = element size): p-1 messages per rank in one round,
//   Cost = (p-1)·α + (p-1)·n·s·β + (p-1)·n·s·γ
// as in algorithms/README.md (the round's α counts every posted message, so the
// one round costs p-1 α; the p-1 local reduces are the γ term); 0 for p = 1.
#include "algorithms/algorithm.hpp"
#include "algorithms/common/direct.hpp"

namespace cb::allreduce {

void naive(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region in{kInput, 0, n}, out{kOutput, 0, n};
  Region own = in;
  if (params.in_place && p > 1) {
    b.step();
    own = {b.add_scratch(n), 0, n};
    b.copy(in, own);
  }
  const BufferId got = p > 1 ? b.add_scratch(static_cast<std::size_t>(p - 1) * n) : kOutput;
  // Where rank q's vector is on this rank.
  auto vector_of = [&](int q) {
    if (q == r) return own;
    const auto slot = static_cast<std::size_t>(q < r ? q : q - 1);
    return Region{got, slot * n, n};
  };
  b.step();
  direct_round(p, r, [&](int q) { b.send(q, own); }, [&](int q) { b.recv(q, vector_of(q)); });
  // The output starts as x0 (op) x1 in one op where this rank holds one of them.
  const int first = r <= 1 ? r : 0;
  if (!params.in_place || first != r) b.copy(vector_of(first), out);
  for (int q = 0; q < p; ++q)
    if (q != first) b.reduce(vector_of(q), out);
}

Cost naive_cost(const CollParams& params) { return direct_cost(params, true); }

}  // namespace cb::allreduce
