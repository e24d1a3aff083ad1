// Algorithm: parameter-server all-reduce: rank 0 receives every vector,
// reduces them, and sends the result back to every rank.
// Restrictions: none (any p, any count; the ops are commutative).
// Idea: the seeds' baseline: a linear reduce to the root then a linear
// broadcast, two rounds, both bound by the root's p-1 messages. Out of place,
// a local step 0 first copies the root's input into its output so the p-1
// incoming vectors are reduced straight into it.
//
// Cost (n = count, s = element size):
//   Cost = 2(p-1)·α + 2(p-1)·n·s·β + (p-1)·n·s·γ
// as in algorithms/README.md (all at the root); 0 for p = 1.
#include "algorithms/algorithm.hpp"

namespace cb::allreduce {

void ps(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region in{kInput, 0, n}, out{kOutput, 0, n};
  if (!params.in_place) {
    b.step();
    if (r == 0) b.copy(in, out);
  }
  b.step();  // gather and reduce at the root
  if (r == 0) {
    for (int q = 1; q < p; ++q) b.recv_reduce(q, out);
  } else {
    b.send(0, in);
  }
  b.step();  // broadcast from the root
  if (r == 0) {
    for (int q = 1; q < p; ++q) b.send(q, out);
  } else {
    b.recv(0, out);
  }
}

Cost ps_cost(const CollParams& params) {
  const double others = params.p - 1;
  const double bytes = static_cast<double>(params.count * params.elem_size());
  return {2 * others, 2 * others * bytes, others * bytes};
}

}  // namespace cb::allreduce
