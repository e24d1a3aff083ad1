// Algorithm: parameter-server all-gather: rank 0 receives every rank's block,
// then sends the whole gathered vector to every rank.
// Restrictions: none (any p, any count).
// Idea: the seeds' baseline, two root-bound rounds: a linear gather, then a
// linear broadcast of all p·n elements (each rank gets its own block back
// too, which keeps it one message).
//
// Cost (n = count = elements per block, s = element size):
//   Cost = 2(p-1)·α + (p-1)(p+1)·n·s·β
// (round 1: the root receives p-1 blocks; round 2: it sends p-1 vectors of
// p·n). Not in algorithms/README.md's table; 0 for p = 1.
#include "algorithms/algorithm.hpp"
#include "algorithms/common/in_place.hpp"

namespace cb::allgather {

void ps(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count, total = static_cast<std::size_t>(p) * n;
  const Region in{kInput, 0, n}, all{kOutput, 0, total};
  auto block = [&](int q) { return Region{kOutput, static_cast<std::size_t>(q) * n, n}; };
  b.step();  // gather at the root
  if (r == 0) {
    for (int q = 1; q < p; ++q) b.recv(q, block(q));
    copy_unless_same(b, params, in, block(0));
  } else {
    b.send(0, in);
  }
  b.step();  // broadcast of everything from the root
  if (r == 0) {
    for (int q = 1; q < p; ++q) b.send(q, all);
  } else {
    b.recv(0, all);
  }
}

Cost ps_cost(const CollParams& params) {
  const double others = params.p - 1;
  const double block_bytes = static_cast<double>(params.count * params.elem_size());
  return {2 * others, others * (params.p + 1) * block_bytes, 0};
}

}  // namespace cb::allgather
