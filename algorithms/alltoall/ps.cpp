// Algorithm: parameter-server all-to-all: every rank sends its whole input to
// rank 0, which regroups the blocks by destination and sends each rank
// everything addressed to it.
// Restrictions: none (any p, any count).
// Idea: the seeds' baseline, two root-bound rounds. Round 1: the root receives
// the p-1 inputs (p·n elements each) into scratch and, locally, packs for each
// rank j the p blocks addressed to it, in source order, then fills its own
// output. Round 2: rank j receives its p blocks from the root straight into
// its output (its own block comes back through the root too, which keeps it
// one message). The root packs from its input before overwriting its output,
// so in place needs nothing more.
// Scratch at the root: 2·(p-1)·p·n elements (received and packed vectors).
//
// Cost (n = count = elements per block, s = element size):
//   Cost = 2(p-1)·α + 2(p-1)·p·n·s·β
// Not in algorithms/README.md's table; 0 for p = 1.
#include "algorithms/algorithm.hpp"
#include "algorithms/common/in_place.hpp"

namespace cb::alltoall {

void ps(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count, total = static_cast<std::size_t>(p) * n;
  auto at = [&](BufferId buf, std::size_t first_block, std::size_t blocks) {
    return Region{buf, first_block * n, blocks * n};
  };
  const auto up = static_cast<std::size_t>(p);
  if (r != 0) {
    b.step();
    b.send(0, at(kInput, 0, up));
    b.step();
    b.recv(0, at(kOutput, 0, up));
    return;
  }
  // The root. received: vector of rank q (1..p-1) at slot q-1;
  // packed: the p blocks for rank j (1..p-1) at slot j-1, block i from rank i.
  const BufferId received = b.add_scratch((up - 1) * total);
  const BufferId packed = b.add_scratch((up - 1) * total);
  b.step();
  for (std::size_t q = 1; q < up; ++q) b.recv(static_cast<int>(q), at(received, (q - 1) * up, up));
  for (std::size_t j = 1; j < up; ++j) {
    b.copy(at(kInput, j, 1), at(packed, (j - 1) * up, 1));
    for (std::size_t i = 1; i < up; ++i)
      b.copy(at(received, (i - 1) * up + j, 1), at(packed, (j - 1) * up + i, 1));
  }
  copy_unless_same(b, params, at(kInput, 0, 1), at(kOutput, 0, 1));
  for (std::size_t i = 1; i < up; ++i) b.copy(at(received, (i - 1) * up, 1), at(kOutput, i, 1));
  b.step();
  for (std::size_t j = 1; j < up; ++j) b.send(static_cast<int>(j), at(packed, (j - 1) * up, up));
}

Cost ps_cost(const CollParams& params) {
  const double others = params.p - 1;
  const double vector_bytes =
      static_cast<double>(params.p) * static_cast<double>(params.count * params.elem_size());
  return {2 * others, 2 * others * vector_bytes, 0};
}

}  // namespace cb::alltoall
