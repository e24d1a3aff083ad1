// Algorithm: direct all-reduce: every rank sends its whole vector to every
// other rank in one round and reduces the p-1 vectors it receives.
// Restrictions: none (any p, any count; the ops are commutative).
// Idea: one round, all messages posted at once. Step 0 is local: the output
// starts as the rank's own vector (out of place), or, in place, the vector is
// copied aside because the output it lives in is reduced into while the
// messages are in flight; then the p-1 incoming vectors are reduced straight
// into the output.
//
// Cost (n = count, s = element size): p-1 messages per rank in one round,
//   Cost = (p-1)·α + (p-1)·n·s·β + (p-1)·n·s·γ
// as in algorithms/README.md (the round's α counts every posted message, so the
// one round costs p-1 α); 0 for p = 1.
#include "algorithms/algorithm.hpp"
#include "algorithms/common/direct.hpp"

namespace cb::allreduce {

void naive(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region in{kInput, 0, n}, out{kOutput, 0, n};
  b.step();
  Region sent = in;
  if (!params.in_place) {
    b.copy(in, out);
  } else {
    sent = {b.add_scratch(n), 0, n};
    b.copy(in, sent);
  }
  b.step();
  direct_round(p, r, [&](int q) { b.send(q, sent); }, [&](int q) { b.recv_reduce(q, out); });
}

Cost naive_cost(const CollParams& params) { return direct_cost(params, true); }

}  // namespace cb::allreduce
