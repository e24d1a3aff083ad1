// Algorithm: Bruck all-gather (Bruck et al., IEEE TPDS 8(11), 1997).
// Restrictions: none (any p, any count).
// Idea: work in a rotated scratch vector B where B[i] is the block of rank
// r+i (mod p), so B[0] is the rank's own. In round k (0 <= k < L), with
// d = 2^k, rank r sends B[0, m) to r-d and receives B[d, d+m) from r+d, where
// m = min(d, p-d): after round k, B holds 2d blocks (or all p). Every message
// is one contiguous range for any p. At the end a local rotation writes
// B[i] to output block r+i (two contiguous copies); the own block comes from
// the input (in place it is already there).
// Scratch: p·n elements.
//
// Cost (L = ceil(log2 p), n = count = elements per block, s = element size):
//   Cost = L·α + (p-1)·n·s·β
// (round k moves min(2^k, p - 2^k) blocks, p - 1 in all for any p), as in
// algorithms/README.md; the final rotation is a local copy and not costed.
#include <algorithm>

#include "algorithms/algorithm.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/common/partition.hpp"

namespace cb::allgather {

void bruck(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region in{kInput, 0, n};
  auto out_blocks = [&](int first, int last) {
    return Region{kOutput, static_cast<std::size_t>(first) * n,
                  static_cast<std::size_t>(last - first) * n};
  };
  const bool own_in_place = same_memory(params, in, out_blocks(r, r + 1));
  const BufferId rot = b.add_scratch(static_cast<std::size_t>(p) * n);
  auto rot_blocks = [&](int first, int last) {
    return Region{rot, static_cast<std::size_t>(first) * n,
                  static_cast<std::size_t>(last - first) * n};
  };
  const int L = ceil_log2(p);
  for (int k = 0; k < L; ++k) {
    const int d = 1 << k, m = std::min(d, p - d);
    b.step();
    b.send((r - d + p) % p, k == 0 ? in : rot_blocks(0, m));
    b.recv((r + d) % p, rot_blocks(d, d + m));
    if (k == 0 && L > 1) b.copy(in, rot_blocks(0, 1));  // later rounds send B[0] too
  }
  // Undo the rotation: B[i] is rank (r+i) mod p's block.
  if (r + 1 < p) b.copy(rot_blocks(1, p - r), out_blocks(r + 1, p));
  if (r > 0) b.copy(rot_blocks(p - r, p), out_blocks(0, r));
  if (!own_in_place) b.copy(in, out_blocks(r, r + 1));
}

Cost bruck_cost(const CollParams& params) {
  return {
      static_cast<double>(ceil_log2(params.p)),
      static_cast<double>(params.p - 1) * static_cast<double>(params.count * params.elem_size()),
      0};
}

}  // namespace cb::allgather
