// Algorithm: parameter-server reduce-scatter: rank 0 receives every rank's
// whole input, reduces them, and sends block q of the result to rank q.
// Restrictions: none (any p, any count; the ops are commutative).
// Idea: the seeds' baseline, two root-bound rounds. The root reduces into a
// scratch vector of p·n elements that a local step 0 fills with its own input
// (so each incoming vector is reduced straight into it), then keeps block 0.
// Scratch: p·n elements at the root.
//
// Cost (n = count = elements per block, s = element size):
//   Cost = 2(p-1)·α + (p-1)(p+1)·n·s·β + (p-1)·p·n·s·γ
// (round 1: the root receives p-1 vectors of p·n; round 2: it sends p-1
// blocks of n). Not in algorithms/README.md's table; 0 for p = 1.
#include "algorithms/common/in_place.hpp"
#include "algorithms/algorithm.hpp"

namespace cb::reduce_scatter {

void ps(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const std::size_t total = static_cast<std::size_t>(p) * n;
  const Region in{kInput, 0, total}, out{kOutput, 0, n};
  const BufferId acc = r == 0 ? b.add_scratch(total) : kInput;
  auto acc_block = [&](int q) { return Region{acc, static_cast<std::size_t>(q) * n, n}; };
  b.step();  // local: the root's accumulator starts as its input
  if (r == 0) b.copy(in, {acc, 0, total});
  b.step();  // every vector to the root, reduced there
  if (r == 0) {
    for (int q = 1; q < p; ++q) b.recv_reduce(q, {acc, 0, total});
  } else {
    b.send(0, in);
  }
  b.step();  // block q of the result to rank q
  if (r == 0) {
    for (int q = 1; q < p; ++q) b.send(q, acc_block(q));
    b.copy(acc_block(0), out);
  } else {
    b.recv(0, out);
  }
}

Cost ps_cost(const CollParams& params) {
  const double others = params.p - 1;
  const double block_bytes = static_cast<double>(params.count * params.elem_size());
  return {2 * others, others * (params.p + 1) * block_bytes, others * params.p * block_bytes};
}

}  // namespace cb::reduce_scatter
