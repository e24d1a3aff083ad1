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

// Rank 2i+1 of a fold: hands its input to its core rank, idles through the
// hypercube rounds, then receives its output whole.
void extra_rank(const Pow2Fold& f, int r, std::size_t n, ScheduleBuilder& b) {
  b.step();
  b.send(f.core_of(r), {kInput, 0, n});
  idle_rounds(b, f.l);
  b.step();
  b.recv(f.core_of(r), {kOutput, 0, n});
}

// A core rank's schedule: its buffer plan (packed, arrived, slots) and the
// rounds in the order they run, a method each.
class CoreRank {
 public:
  CoreRank(const CollParams& params, ScheduleBuilder& b)
      : params_(params), b_(b), f_(params.p), r_(params.rank), c_(params.count),
        n_(c_ * static_cast<std::size_t>(params.p)), v_(f_.vrank(r_)), x_(f_.extra_of(r_)),
        slots_{f_, kOutput, c_, 1} {
    std::size_t most_sent = x_ >= 0 ? static_cast<std::size_t>(params.p) : 0;
    std::size_t most_received = most_sent;
    for (int k = 0; k < f_.l; ++k) {
      most_sent = std::max(most_sent, blocks_sent(f_, v_, k));
      most_received = std::max(most_received, blocks_sent(f_, v_ ^ (1 << k), k));
    }
    packed_[0] = b_.add_scratch(most_sent * c_);
    packed_[1] = f_.l > 1 || x_ >= 0 ? b_.add_scratch(most_sent * c_) : kOutput;
    arrived_ = b_.add_scratch(most_received * c_);
    if (f_.folds()) {
      slots_.buf = b_.add_scratch(static_cast<std::size_t>(4 * f_.p2) * c_);
      slots_.cap = 4;
    }
  }

  void run() {
    fold_in();
    for (int k = 0; k < f_.l; ++k) round(k);
    if (f_.folds()) unfold();
  }

 private:
  Region block(BufferId buf, int i) const { return {buf, static_cast<std::size_t>(i) * c_, c_}; }

  // The fold round (own and extra rank's input into the slots), or a
  // local-only step for a power of two (input to output, the working buffer).
  void fold_in() {
    b_.step();
    CopyRuns runs(b_);
    if (!f_.folds()) {
      if (!params_.in_place) runs.add({kInput, 0, n_}, {kOutput, 0, n_});
      return;
    }
    for (int d = 0; d < params_.p; ++d) runs.add(block(kInput, d), slots_.at(r_, d, 0));
    if (x_ >= 0) {
      b_.recv(x_, {arrived_, 0, n_});
      for (int d = 0; d < params_.p; ++d) runs.add(block(arrived_, d), slots_.at(x_, d, 0));
    }
  }

  // Packs round k's blocks (or, k = l, the extra rank's) into packed_[k % 2].
  void pack(int k) {
    CopyRuns runs(b_);
    std::size_t at = 0;
    auto add = [&](int o, int d) {
      runs.add(slots_.at(o, d, k), {packed_[k % 2], at, c_});
      at += c_;
    };
    if (k < f_.l) {
      slots_.for_each_sent(v_, k, add);
    } else {
      for (int o = 0; o < params_.p; ++o) add(o, x_);
    }
  }

  // Round k: exchange with v ^ 2^k, unpack what arrived into the vacated slots.
  void round(int k) {
    pack(k);
    b_.step();
    const int w = v_ ^ (1 << k);
    const int peer = f_.rank_of(w);
    b_.send(peer, {packed_[k % 2], 0, blocks_sent(f_, v_, k) * c_});
    b_.recv(peer, {arrived_, 0, blocks_sent(f_, w, k) * c_});
    CopyRuns runs(b_);
    std::size_t at = 0;
    slots_.for_each_sent(w, k, [&](int o, int d) {
      runs.add({arrived_, at, c_}, slots_.at(o, d, k + 1));
      at += c_;
    });
  }

  // Non-powers of two: own blocks from the slots into the output, the extra
  // rank's packed and sent in a last round.
  void unfold() {
    {
      CopyRuns runs(b_);
      for (int o = 0; o < params_.p; ++o) runs.add(slots_.at(o, r_, f_.l), block(kOutput, o));
    }
    if (x_ >= 0) pack(f_.l);
    b_.step();
    if (x_ >= 0) b_.send(x_, {packed_[f_.l % 2], 0, n_});
  }

  const CollParams& params_;
  ScheduleBuilder& b_;
  const Pow2Fold f_;
  const int r_;
  const std::size_t c_, n_;
  const int v_, x_;  // virtual rank, extra rank folded into this one (-1: none)
  BufferId packed_[2] = {kOutput, kOutput};
  BufferId arrived_ = kOutput;
  Slots slots_;
};

}  // namespace

void butterfly(const CollParams& params, ScheduleBuilder& b) {
  const Pow2Fold f(params.p);
  if (f.is_extra(params.rank)) {
    extra_rank(f, params.rank, params.count * static_cast<std::size_t>(params.p), b);
    return;
  }
  CoreRank(params, b).run();
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
