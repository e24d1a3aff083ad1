// Algorithm: pairwise-exchange all-to-all.
// Restrictions: none (any p, any count).
// Idea: p-1 rounds, one block out and one in per rank per round. For p a
// power of two, round i pairs r with r XOR i (a perfect matching: both
// directions of a link carry one block); otherwise rank r sends its block for
// r+i to r+i and receives from r-i (indices mod p). The own block is a local
// copy. In place, receives would overwrite blocks still to be sent, so a local
// step 0 first copies the p-1 outgoing blocks aside (common/in_place.hpp).
// Scratch: (p-1)·n elements in place, none out of place.
//
// Cost (n = count = elements per block, s = element size):
//   Cost = (p-1)·α + (p-1)·n·s·β
// as in algorithms/README.md; 0 for p = 1.
#include "algorithms/algorithm.hpp"
#include "algorithms/common/direct.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/common/partition.hpp"

namespace cb::alltoall {

void pairwise(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  AlltoallSendBlocks from(params);
  from.snapshot_step(b);
  const bool xor_pairs = is_pow2(p);
  b.for_steps(static_cast<std::uint64_t>(p - 1), [&](std::uint64_t k) {
    const int i = static_cast<int>(k) + 1;
    const int to = xor_pairs ? r ^ i : (r + i) % p;
    const int from_rank = xor_pairs ? r ^ i : (r - i + p) % p;
    b.send(to, from.of(to));
    b.recv(from_rank, alltoall_out_block(params, from_rank));
    if (i == 1) alltoall_keep_own(b, params);
  });
}

Cost pairwise_cost(const CollParams& params) { return direct_cost(params, false); }

}  // namespace cb::alltoall
