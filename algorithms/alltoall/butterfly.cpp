// Algorithm: hypercube (butterfly) all-to-all.
// Restrictions: none; any p (non-powers of two fold, below), any count
// (count = elements per destination).
// Idea: in round k (k = 0 .. l-1) rank v exchanges with v ^ 2^k every block
// it holds whose destination differs from v in bit k. Before round k a rank
// holds the blocks from the 2^k ranks sharing its bits >= k that are bound
// for the ranks sharing its bits < k, p blocks in all, of which it sends
// half: l rounds of n/2 (n = p·c bytes sent per rank) instead of the p-1
// rounds of direct exchange, the minimum-round trade-off of Bruck et al.
// Blocks are kept in the slot (destination bits >= k, origin bits < k), so a
// block keeps its slot when it stays and an arriving block takes the slot of
// the one that left; slots start as the input layout (by destination) and end
// as the output layout (by origin), so for a power of two the output buffer
// is the working buffer. The half a round sends is not contiguous, so it is
// packed into a scratch buffer in the previous step (a local-only first step
// for a power of two) and unpacked into the vacated slots after arrival.
// Non-powers of two (a documented variant): the fold of pow2_fold.hpp. Rank
// 2i+1 sends its whole input to rank 2i first; the p' core ranks then run the
// hypercube on virtual ranks, where virtual rank v stands for one or two real
// origins and one or two real destinations (a slot holds up to 4 blocks, in
// a scratch buffer of 4p'·c); a last round delivers rank 2i+1's p blocks.
// Cost = l·alpha + sum_k M_k·c·beta (c = count in bytes), M_k = the largest
// number of blocks any core rank sends or receives in round k: its origin
// ranks times the destination ranks whose bit k (of their virtual rank)
// differs; p/2 for powers of two, giving (lg p / 2)·nβ. If p is not a power
// of two add 2·alpha + 2·n·beta (fold and unfold of n = p·c bytes).
// p = 1: a local copy (none in place).
#include <algorithm>

#include "algorithms/algorithm.hpp"
#include "algorithms/common/cost_sum.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/common/messages.hpp"
#include "algorithms/common/pow2_fold.hpp"

namespace cb::alltoall {
namespace {

// Real ranks [first_rank(lo), first_rank(hi)) of virtual ranks [lo, hi).
int ranks_in(const Pow2Fold& f, int lo, int hi) { return f.first_rank(hi) - f.first_rank(lo); }

// Real ranks whose virtual rank is congruent to t modulo 2^(k+1).
int ranks_congruent(const Pow2Fold& f, int t, int k) {
  const int step = 2 << k;
  const int doubled = t < f.e ? (f.e - 1 - t) / step + 1 : 0;  // virtual ranks < e stand for 2
  return f.p2 / step + doubled;
}

// Blocks virtual rank v sends in round k: its origins times the destinations
// whose bit k differs from v's.
std::size_t blocks_sent(const Pow2Fold& f, int v, int k) {
  const int m = 1 << k;
  const int a = v & ~(m - 1);
  const int t = (v & (m - 1)) | ((v & m) ^ m);
  return static_cast<std::size_t>(ranks_in(f, a, a + m)) *
         static_cast<std::size_t>(ranks_congruent(f, t, k));
}

// Merges consecutive copies of adjacent regions into one local op.
class CopyRuns {
 public:
  explicit CopyRuns(ScheduleBuilder& b) : b_(b) {}
  ~CopyRuns() { flush(); }
  void add(Region src, Region dst) {
    if (src.count == 0) return;
    if (open_ && src.buf == src_.buf && dst.buf == dst_.buf &&
        src.offset == src_.offset + src_.count && dst.offset == dst_.offset + dst_.count) {
      src_.count += src.count;
      dst_.count += dst.count;
      return;
    }
    flush();
    src_ = src;
    dst_ = dst;
    open_ = true;
  }
  void flush() {
    if (open_) b_.copy(src_, dst_);
    open_ = false;
  }

 private:
  ScheduleBuilder& b_;
  Region src_, dst_;
  bool open_ = false;
};

// Where core rank v keeps the blocks it holds.
struct Slots {
  const Pow2Fold& f;
  BufferId buf;
  std::size_t c;
  int cap;  // blocks per slot: 1 for a power of two, else 4

  int sup(int rank) const { return rank < 2 * f.e ? rank / 2 : rank - f.e; }
  // Block (origin o, destination d) before round k (k = l: at the end).
  Region at(int o, int d, int k) const {
    const int O = sup(o), D = sup(d);
    const int low = (1 << k) - 1;
    const int slot = (D & ~low) | (O & low);
    const int sub = cap == 1 ? 0 : 2 * (o - f.first_rank(O)) + (d - f.first_rank(D));
    return {buf, static_cast<std::size_t>(slot * cap + sub) * c, c};
  }
  // Calls fn(o, d) for the blocks virtual rank v sends in round k, in the
  // order they travel: by slot, then origin, then destination.
  template <class Fn>
  void for_each_sent(int v, int k, Fn fn) const {
    const int m = 1 << k, low = m - 1;
    for (int slot = 0; slot < f.p2; ++slot) {
      if ((slot & m) == (v & m)) continue;
      const int O = (v & ~low) | (slot & low);
      const int D = (slot & ~low) | (v & low);
      for (int o = f.first_rank(O); o < f.first_rank(O + 1); ++o)
        for (int d = f.first_rank(D); d < f.first_rank(D + 1); ++d) fn(o, d);
    }
  }
};

}  // namespace

// Long on purpose: the rounds in the order they run, sharing one buffer plan (packed, slots).
void butterfly(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t c = params.count;
  const std::size_t n = c * static_cast<std::size_t>(p);
  auto block = [c](BufferId buf, int i) { return Region{buf, static_cast<std::size_t>(i) * c, c}; };
  const Pow2Fold f(p);
  if (f.is_extra(r)) {
    b.step();
    b.send(f.core_of(r), {kInput, 0, n});
    idle_rounds(b, f.l);
    b.step();
    b.recv(f.core_of(r), {kOutput, 0, n});
    return;
  }
  const int v = f.vrank(r);
  const int x = f.extra_of(r);
  std::size_t most_sent = x >= 0 ? static_cast<std::size_t>(p) : 0;
  std::size_t most_received = most_sent;
  for (int k = 0; k < f.l; ++k) {
    most_sent = std::max(most_sent, blocks_sent(f, v, k));
    most_received = std::max(most_received, blocks_sent(f, v ^ (1 << k), k));
  }
  const BufferId packed[2] = {b.add_scratch(most_sent * c),
                              f.l > 1 || x >= 0 ? b.add_scratch(most_sent * c) : kOutput};
  const BufferId arrived = b.add_scratch(most_received * c);
  const Slots slots{f, f.folds() ? b.add_scratch(static_cast<std::size_t>(4 * f.p2) * c) : kOutput,
                    c, f.folds() ? 4 : 1};

  // Packs round k's blocks (or, k = l, the extra rank's) into packed[k % 2].
  auto pack = [&](int k) {
    CopyRuns runs(b);
    std::size_t at = 0;
    auto add = [&](int o, int d) {
      runs.add(slots.at(o, d, k), {packed[k % 2], at, c});
      at += c;
    };
    if (k < f.l) {
      slots.for_each_sent(v, k, add);
    } else {
      for (int o = 0; o < p; ++o) add(o, x);
    }
  };

  b.step();  // the fold round, or a local-only step for a power of two
  {
    CopyRuns runs(b);
    if (!f.folds()) {
      if (!params.in_place) runs.add({kInput, 0, n}, {kOutput, 0, n});
    } else {
      for (int d = 0; d < p; ++d) runs.add(block(kInput, d), slots.at(r, d, 0));
      if (x >= 0) {
        b.recv(x, {arrived, 0, n});
        for (int d = 0; d < p; ++d) runs.add(block(arrived, d), slots.at(x, d, 0));
      }
    }
  }
  for (int k = 0; k < f.l; ++k) {
    pack(k);
    b.step();
    const int w = v ^ (1 << k);
    const int peer = f.rank_of(w);
    b.send(peer, {packed[k % 2], 0, blocks_sent(f, v, k) * c});
    b.recv(peer, {arrived, 0, blocks_sent(f, w, k) * c});
    CopyRuns runs(b);
    std::size_t at = 0;
    slots.for_each_sent(w, k, [&](int o, int d) {
      runs.add({arrived, at, c}, slots.at(o, d, k + 1));
      at += c;
    });
  }
  if (!f.folds()) return;
  {
    CopyRuns runs(b);
    for (int o = 0; o < p; ++o) runs.add(slots.at(o, r, f.l), block(kOutput, o));
  }
  if (x >= 0) pack(f.l);
  b.step();
  if (x >= 0) b.send(x, {packed[f.l % 2], 0, n});
}

Cost butterfly_cost(const CollParams& params) {
  const Pow2Fold f(params.p);
  const std::size_t c = params.count, es = params.elem_size();
  const std::size_t n = c * static_cast<std::size_t>(params.p);
  Cost rounds;
  for (int k = 0; k < f.l; ++k) {
    std::size_t most = 0;
    for (int v = 0; v < f.p2; ++v) most = std::max(most, blocks_sent(f, v, k));
    rounds.alpha += 1;
    rounds.beta += static_cast<double>(most * c * es);
  }
  return cost_sum({fold_round_cost(f, n, es, false), rounds, fold_round_cost(f, n, es, false)});
}

}  // namespace cb::alltoall
