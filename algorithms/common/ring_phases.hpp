// The two phases every ring algorithm is made of, over p blocks of a vector.
//
// Ring reduce-scatter: in step s (0 <= s < p-1) rank r sends its partial sum
// of block r-1-s to r+1 and combines the partial of block r-2-s arriving from
// r-1; after p-1 steps rank r holds block r reduced over all ranks.
// Ring all-gather: in step s rank r forwards block r-s to r+1 and receives
// block r-1-s from r-1; after p-1 steps every rank holds every block.
// Block indices are mod p. Ring all-reduce is the first followed by the second.
//
// Segmentation: each ring step is cut into `chunks` sub-steps, chunk j of
// every block (pipeline.hpp's chunk_of) moving in sub-step j. The block
// partition is partition.hpp's, so the largest block is block 0.
// Cost of one phase (p >= 2, B = largest block in BYTES, k = chunks <= B):
//   (p-1)·k alpha + (p-1)·B beta [+ (p-1)·B gamma for reduce-scatter].
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "algorithms/builder.hpp"
#include "algorithms/common/messages.hpp"
#include "algorithms/common/partition.hpp"
#include "algorithms/common/pipeline.hpp"

namespace cb {

// p blocks of a vector of n elements stored from `base` of buffer `buf`.
struct RingBlocks {
  BufferId buf = kOutput;
  std::size_t base = 0;  // elements
  std::size_t n = 0;     // elements in the whole vector
  int p = 1;

  // Block i, with i taken mod p.
  Region block(int i) const {
    const int k = ((i % p) + p) % p;
    const Block blk = cb::block(n, p, k);
    return {buf, base + blk.offset, blk.count};
  }
  std::size_t largest() const { return block_count(n, p, 0); }
};

// Sub-steps per ring step for this segment size (1 when unsegmented).
inline int ring_chunks(std::size_t largest_block, const CollParams& params) {
  return pipeline_chunks(largest_block, params.elem_size(), params.segment_bytes, 1);
}

struct RingReduceScatterPlan {
  // This rank's contribution to each block.
  RingBlocks contrib;
  // acc(s, i): where the partial sum of block i received in step s is kept
  // (and sent from in step s+1). It must not be acc(s-1, .) of the block sent
  // in step s.
  std::function<Region(int s, int i)> acc;
  // True when acc(s, i) already holds this rank's contribution (in place):
  // messages are reduce-received. Otherwise they land in `temp` (scratch of
  // one chunk of the largest block) and are combined with contrib locally.
  bool acc_holds_contrib = false;
  BufferId temp = kOutput;
  int chunks = 1;
};

inline void ring_reduce_scatter_phase(ScheduleBuilder& b, int p, int r,
                                      const RingReduceScatterPlan& plan) {
  const int right = (r + 1) % p;
  const int left = (r + p - 1) % p;
  const auto chunks = static_cast<std::uint64_t>(std::max(plan.chunks, 0));
  b.for_steps(static_cast<std::uint64_t>(p - 1) * chunks, [&](std::uint64_t k) {
    const int s = static_cast<int>(k / chunks), j = static_cast<int>(k % chunks);
    const int give = r - 1 - s;
    const int take = r - 2 - s;
    const Region src = s == 0 ? plan.contrib.block(give) : plan.acc(s - 1, give);
    send_nonempty(b, right, chunk_of(src, plan.chunks, j));
    const Region d = chunk_of(plan.acc(s, take), plan.chunks, j);
    if (plan.acc_holds_contrib)
      recv_reduce_nonempty(b, left, d);
    else
      recv_reduce_from(b, left, chunk_of(plan.contrib.block(take), plan.chunks, j), d, plan.temp);
  });
}

struct RingAllgatherPlan {
  // Where the gathered blocks go; on entry block r holds this rank's block,
  // unless own_input is given.
  RingBlocks out;
  // This rank's block elsewhere (out of place): sent from there in step 0
  // and copied into out.block(r) alongside.
  std::optional<Region> own_input;
  int chunks = 1;
};

inline void ring_allgather_phase(ScheduleBuilder& b, int p, int r, const RingAllgatherPlan& plan) {
  const int right = (r + 1) % p;
  const int left = (r + p - 1) % p;
  const auto chunks = static_cast<std::uint64_t>(std::max(plan.chunks, 0));
  b.for_steps(static_cast<std::uint64_t>(p - 1) * chunks, [&](std::uint64_t k) {
    const int s = static_cast<int>(k / chunks), j = static_cast<int>(k % chunks);
    const bool from_input = s == 0 && plan.own_input.has_value();
    const Region src = from_input ? *plan.own_input : plan.out.block(r - s);
    send_nonempty(b, right, chunk_of(src, plan.chunks, j));
    recv_nonempty(b, left, chunk_of(plan.out.block(r - 1 - s), plan.chunks, j));
    if (from_input && j == 0) b.copy(*plan.own_input, plan.out.block(r));
  });
}

// Cost of one ring phase (see the header comment); es = element size.
inline Cost ring_phase_cost(int p, std::size_t largest_block, int chunks, std::size_t es,
                            bool reduces) {
  if (p < 2 || largest_block == 0) return {};
  const double steps = p - 1;
  const double bytes = static_cast<double>(largest_block * es);
  return {steps * chunks, steps * bytes, reduces ? steps * bytes : 0.0};
}

}  // namespace cb
