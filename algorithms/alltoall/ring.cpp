// Algorithm: store-and-forward ring all-to-all.
// Restrictions: none; any p, any count (count = elements per destination).
// Idea: in round s (1 <= s < p) rank r sends to r+1 the p-s blocks that
// started at rank r-s+1 and are still travelling (destinations r+1 ...
// r+p-s), and receives from r-1 the p-s blocks of rank r-s; it keeps the
// first (its own) and forwards the rest in round s+1. Only neighbours talk,
// at the price of (p-1)/2 times the data volume. The blocks a rank sends
// first are its input rotated to start at destination r+1, which a local-only
// step prepares (the input is split around r otherwise); messages then
// alternate between two scratch buffers. segment_bytes > 0 cuts round s into
// k_s sub-steps (chunks of its message).
// Cost = sum_{s=1}^{p-1} k_s·alpha + (p(p-1)/2)·c·beta (c = count in bytes),
// k_s = 1 unsegmented, else ceil((p-s)·count / g) with g = max(1,
// segment_bytes / element size) elements per segment (pipeline.hpp);
// with n = p·c that is the table's (p-1)α + (p-1)/2·nβ.
// p = 1: a local copy (none in place).
#include "algorithms/algorithm.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/common/messages.hpp"
#include "algorithms/common/pipeline.hpp"

namespace cb::alltoall {
namespace {

int round_chunks(const CollParams& params, int s) {
  const std::size_t elems = static_cast<std::size_t>(params.p - s) * params.count;
  return pipeline_chunks(elems, params.elem_size(), params.segment_bytes, 1);
}

}  // namespace

void ring(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t c = params.count;
  auto block = [c](BufferId buf, int i) { return Region{buf, static_cast<std::size_t>(i) * c, c}; };
  b.step();  // local only: own block, and the first message in destination order
  copy_unless_same(b, params, block(kInput, r), block(kOutput, r));
  const BufferId bufs[2] = {b.add_scratch(static_cast<std::size_t>(p - 1) * c),
                            b.add_scratch(static_cast<std::size_t>(p - 1) * c)};
  // bufs[0] = the input rotated to start at destination r+1: blocks r+1 ..
  // p-1, then 0 .. r-1.
  const std::size_t after = static_cast<std::size_t>(p - 1 - r) * c;
  const std::size_t before = static_cast<std::size_t>(r) * c;
  if (after > 0) b.copy({kInput, before + c, after}, {bufs[0], 0, after});
  if (before > 0) b.copy({kInput, 0, before}, {bufs[0], after, before});
  if (params.segment_bytes > 0)
    b.set_segment_bytes(largest_chunk_bytes(static_cast<std::size_t>(p - 1) * c,
                                            round_chunks(params, 1), params.elem_size()));
  const int right = (r + 1) % p, left = (r + p - 1) % p;
  // Sub-step j of the `chunks` of round s.
  auto sub_step = [&](int s, int chunks, int j) {
    const std::size_t len = static_cast<std::size_t>(p - s) * c;
    const Region give{bufs[(s - 1) % 2], s == 1 ? 0 : c, len};
    const Region take{bufs[s % 2], 0, len};
    send_nonempty(b, right, chunk_of(give, chunks, j));
    recv_nonempty(b, left, chunk_of(take, chunks, j));
    // The first block that arrived is rank r-s's block for this rank.
    if (j == chunks - 1) b.copy({take.buf, 0, c}, block(kOutput, (r - s + p) % p));
  };
  const auto rounds = static_cast<std::uint64_t>(p - 1);
  if (round_chunks(params, 1) == 1) {  // unsegmented: one step per round (chunks only shrink)
    b.for_steps(rounds, [&](std::uint64_t k) { sub_step(static_cast<int>(k) + 1, 1, 0); });
    return;
  }
  for (int s = 1; s < p; ++s) {
    const int chunks = round_chunks(params, s);
    b.for_steps(static_cast<std::uint64_t>(chunks),
                [&](std::uint64_t j) { sub_step(s, chunks, static_cast<int>(j)); });
  }
}

Cost ring_cost(const CollParams& params) {
  Cost cost;
  const double es = static_cast<double>(params.elem_size());
  for (int s = 1; s < params.p; ++s) {
    cost.alpha += round_chunks(params, s);
    cost.beta += static_cast<double>(static_cast<std::size_t>(params.p - s) * params.count) * es;
  }
  return cost;
}

}  // namespace cb::alltoall
