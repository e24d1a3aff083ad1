// Recursive halving (reduce-scatter) and recursive doubling (all-gather) over
// P = 2^l virtual ranks, the building blocks of Rabenseifner's all-reduce.
//
// The vector is cut into P virtual blocks; virtual rank v ends the halving
// phase owning block v reduced, and the doubling phase starts from there.
//  - Halving: round k pairs v with v ^ (P >> (k+1)); the pair splits its
//    current range of blocks in halves, the lower virtual rank keeps the lower
//    half, each sends the other half and reduces the half it keeps.
//  - Doubling: round k pairs v with v ^ 2^k; each sends its current range (2^k
//    aligned blocks containing v) and receives the partner's, which adjoins it.
// Blocks need not be equal or stored in virtual order of real ranks: a
// VirtualBlocks says where each lives, and rank_of maps virtual to real ranks.
// Every range exchanged is a run of consecutive virtual blocks, so it is one
// region and one message.
//
// Cost: in each round the messages are all the aligned ranges of one width w
// (P/2 ... 1 for halving, 1 ... P/2 for doubling); the largest of them sets
// beta (and gamma for halving). max_aligned_range computes it.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <algorithm>
#include <functional>
#include <vector>

#include "algorithms/builder.hpp"
#include "algorithms/common/messages.hpp"
#include "algorithms/common/partition.hpp"

namespace cb {

// Virtual block v lives at [off(v), off(v+1)) after `base` in `buf`
// (elements), for 0 <= v < P; off(0) = 0. A function rather than a table of
// P + 1 offsets, so one rank's schedule costs O(log P) to build: the
// simulator builds all p of them (p up to 2^20).
struct VirtualBlocks {
  BufferId buf = kOutput;
  std::size_t base = 0;
  std::function<std::size_t(int)> off;

  // Virtual blocks [a, b) as one region.
  Region range(int a, int b) const {
    const std::size_t lo = off(a);
    return {buf, base + lo, off(b) - lo};
  }
  // The larger of the two halves [0, P/2) and [P/2, P), in elements.
  std::size_t largest_half(int P) const {
    return std::max(range(0, P / 2).count, range(P / 2, P).count);
  }
};

// Offsets from a table (P + 1 entries).
inline std::function<std::size_t(int)> table_offsets(std::vector<std::size_t> off) {
  return [off = std::move(off)](int v) { return off[static_cast<std::size_t>(v)]; };
}

// Offsets of n elements cut into k blocks as partition.hpp cuts them.
inline std::function<std::size_t(int)> partition_offset_fn(std::size_t n, int k) {
  return [n, k](int i) { return block_offset(n, k, i); };
}

// Offsets of n elements cut into k blocks as partition.hpp cuts them.
inline std::vector<std::size_t> partition_offsets(std::size_t n, int k) {
  std::vector<std::size_t> off(static_cast<std::size_t>(k) + 1);
  for (int i = 0; i <= k; ++i) off[static_cast<std::size_t>(i)] = block_offset(n, k, i);
  return off;
}

// Offsets of blocks whose sizes are size(v) for v in 0..k-1, stored in order.
template <class SizeFn>
std::vector<std::size_t> offsets_of_sizes(int k, SizeFn size) {
  std::vector<std::size_t> off(static_cast<std::size_t>(k) + 1, 0);
  for (int v = 0; v < k; ++v)
    off[static_cast<std::size_t>(v) + 1] = off[static_cast<std::size_t>(v)] + size(v);
  return off;
}

// Largest run of w aligned consecutive blocks: max over a = 0, w, 2w, ... of
// off[a + w] - off[a].
inline std::size_t max_aligned_range(const std::vector<std::size_t>& off, int w) {
  std::size_t best = 0;
  const auto uw = static_cast<std::size_t>(w);
  for (std::size_t a = 0; a + uw < off.size(); a += uw) best = std::max(best, off[a + uw] - off[a]);
  return best;
}

struct HalvingPlan {
  VirtualBlocks work;  // where partial sums accumulate
  // Set when `work` does not hold this rank's contribution yet (out of
  // place): the first round sends from it and combines it with the message
  // through `temp` (scratch of at least the largest half).
  std::optional<VirtualBlocks> contrib;
  BufferId temp = kOutput;
  std::function<int(int)> rank_of;
};

// P virtual ranks, this one is v; log2(P) rounds.
inline void recursive_halving_phase(ScheduleBuilder& b, int P, int v, const HalvingPlan& plan) {
  int lo = 0, hi = P;
  for (int mask = P / 2; mask >= 1; mask /= 2) {
    b.step();
    const int mid = lo + (hi - lo) / 2;
    const bool upper = (v & mask) != 0;
    const int keep_lo = upper ? mid : lo, keep_hi = upper ? hi : mid;
    const int give_lo = upper ? lo : mid, give_hi = upper ? mid : hi;
    const int peer = plan.rank_of(v ^ mask);
    const bool first = mask == P / 2 && plan.contrib.has_value();
    send_nonempty(b, peer, (first ? *plan.contrib : plan.work).range(give_lo, give_hi));
    const Region keep = plan.work.range(keep_lo, keep_hi);
    if (first)
      recv_reduce_from(b, peer, plan.contrib->range(keep_lo, keep_hi), keep, plan.temp);
    else
      recv_reduce_nonempty(b, peer, keep);
    lo = keep_lo;
    hi = keep_hi;
  }
}

struct DoublingPlan {
  VirtualBlocks work;  // gathered blocks; block v holds this rank's on entry
  // This rank's block elsewhere: sent from there in the first round and
  // copied into work block v alongside.
  std::optional<Region> own_input;
  std::function<int(int)> rank_of;
};

inline void recursive_doubling_phase(ScheduleBuilder& b, int P, int v, const DoublingPlan& plan) {
  for (int mask = 1; mask < P; mask *= 2) {
    b.step();
    const int mine = v & ~(mask - 1);
    const int theirs = (v ^ mask) & ~(mask - 1);
    const int peer = plan.rank_of(v ^ mask);
    const bool first = mask == 1 && plan.own_input.has_value();
    send_nonempty(b, peer, first ? *plan.own_input : plan.work.range(mine, mine + mask));
    recv_nonempty(b, peer, plan.work.range(theirs, theirs + mask));
    if (first) b.copy(*plan.own_input, plan.work.range(v, v + 1));
  }
}

// Cost of either phase over blocks at `off` (P + 1 entries); es = element
// size; `reduces` for halving.
inline Cost recursive_phase_cost(const std::vector<std::size_t>& off, std::size_t es,
                                 bool reduces) {
  Cost c;
  const int P = static_cast<int>(off.size()) - 1;
  for (int w = 1; w < P; w *= 2) {
    const std::size_t m = max_aligned_range(off, w);
    if (m == 0) continue;
    const double bytes = static_cast<double>(m * es);
    c.alpha += 1;
    c.beta += bytes;
    if (reduces) c.gamma += bytes;
  }
  return c;
}

}  // namespace cb
