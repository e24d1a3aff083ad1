// Algorithm: Bruck all-to-all (Bruck et al., IEEE TPDS 8(11), 1997).
// Restrictions: none (any p, any count).
// Idea: rotate so that B[i] holds the rank's block for rank r+i (mod p). In
// round k (0 <= k < L) every block whose index i has bit k set moves to rank
// r+2^k, keeping its index; after L rounds B[i] holds the block that rank r-i
// addressed to r. A final local permutation writes B[i] to output block r-i.
// The blocks of a round are not contiguous in B, so they are packed into a
// send buffer before the round and unpacked from a receive buffer after it
// (two send buffers alternate: a round's send buffer must not be rewritten in
// that round). Step 0 is local: the first rotation and the first packing.
// Scratch: p·n + 3·floor(p/2)·n elements.
//
// Cost (L = ceil(log2 p), n = count = elements per block, s = element size,
// m_k = #{i in [0, p) : bit k of i is set}):
//   Cost = L·α + (sum over k < L of m_k)·n·s·β
// as in algorithms/README.md ((1/p)·Σ_k m_k of the p·n elements each rank sends;
// about L/2 for large p); rotations and packing are local and not costed.
#include <algorithm>

#include "algorithms/algorithm.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/common/partition.hpp"

namespace cb::alltoall {
namespace {

// Blocks of [0, p) whose index has bit k set: runs [start, start + 2^k).
int blocks_with_bit(int p, int k) {
  int m = 0;
  for (int start = 1 << k; start < p; start += 2 << k) m += std::min(1 << k, p - start);
  return m;
}

}  // namespace

void bruck(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  auto at = [&](BufferId buf, int first_block, int blocks) {
    return Region{buf, static_cast<std::size_t>(first_block) * n,
                  static_cast<std::size_t>(blocks) * n};
  };
  const int L = ceil_log2(p);
  const auto pack_blocks =
      static_cast<std::size_t>(blocks_with_bit(p, 0)) * n;  // the largest round
  const BufferId rot = b.add_scratch(static_cast<std::size_t>(p) * n);
  const BufferId send_buf[2] = {b.add_scratch(pack_blocks), b.add_scratch(pack_blocks)};
  const BufferId recv_buf = b.add_scratch(pack_blocks);
  // Copies the round-k blocks between B and a packed buffer, either way.
  auto move_round_blocks = [&](int k, BufferId packed, bool to_packed) {
    int pos = 0;
    for (int start = 1 << k; start < p; start += 2 << k) {
      const int len = std::min(1 << k, p - start);
      if (to_packed) {
        b.copy(at(rot, start, len), at(packed, pos, len));
      } else {
        b.copy(at(packed, pos, len), at(rot, start, len));
      }
      pos += len;
    }
  };
  b.step();  // local: B[i] = input block r+i, then pack round 0
  b.copy(at(kInput, r, p - r), at(rot, 0, p - r));
  if (r > 0) b.copy(at(kInput, 0, r), at(rot, p - r, r));
  move_round_blocks(0, send_buf[0], true);
  for (int k = 0; k < L; ++k) {
    const int d = 1 << k, m = blocks_with_bit(p, k);
    b.step();
    b.send((r + d) % p, at(send_buf[k % 2], 0, m));
    b.recv((r - d + p) % p, at(recv_buf, 0, m));
    move_round_blocks(k, recv_buf, false);
    if (k + 1 < L) move_round_blocks(k + 1, send_buf[(k + 1) % 2], true);
  }
  // B[i] came from rank r-i.
  for (int i = 0; i < p; ++i) b.copy(at(rot, i, 1), at(kOutput, (r - i + p) % p, 1));
}

Cost bruck_cost(const CollParams& params) {
  const int L = ceil_log2(params.p);
  double blocks = 0;
  for (int k = 0; k < L; ++k) blocks += blocks_with_bit(params.p, k);
  return {static_cast<double>(L), blocks * static_cast<double>(params.count * params.elem_size()),
          0};
}

}  // namespace cb::alltoall
