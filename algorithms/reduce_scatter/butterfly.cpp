// Algorithm: butterfly reduce-scatter: recursive doubling that preserves the
// rank order of the operands (the table's "recursive doubling" row, MPICH's
// choice for non-commutative ops).
// Restrictions: none; any p (non-powers of two fold, below), any count
// (count = elements per rank's block).
// Idea: in round k (k = 0 .. l-1) rank v and v ^ 2^k combine their groups
// G_k (the 2^k aligned ranks around each): each sends the partial sums over
// its group of every block outside its own group, and reduces what it
// receives into the blocks it still needs (its own block and those outside
// G_{k+1}); the blocks of its own group other than its own are received but
// useless to it, the price of sending one contiguous message. Partial sums
// are kept in a scratch vector rotated so that this rank's block comes first:
// then "every block outside G_k" is one contiguous run for every k. A round
// cannot send from the vector it reduces into, so it sends from a copy of the
// part the next round sends (two copies, alternating). The
// combine tree is the balanced one over rank order; within a combine the two
// operands are applied as dst (op) message, which gives the same result for
// collbench's ops (all commutative). For p not a power of two
// (pow2_fold.hpp) rank 2i+1 first sends its whole vector to rank 2i, which
// reduces it and then stands for both ranks (its block is blocks 2i, 2i+1);
// a last round returns block 2i+1. A power of two starts with a local-only
// step that fills the rotated vector.
// Cost = l·alpha + sum_k (n - S_k)·beta + sum_k G_k·gamma, n = p·c bytes
// (c = count in bytes), S_k = the smallest run of 2^k aligned core blocks
// (2^k·c for powers of two, so beta = (lg p - (p-1)/p)·n as in the table),
// G_k = the largest over ranks of (n - its G_{k+1} run + its own block)
// (= n - 2^(k+1)·c + c for powers of two: the table reduces all n - 2^k·c
// received bytes; this reduces only the ones that are needed). If p is not
// a power of two add 2·alpha + (n + c)·beta + n·gamma (fold and unfold).
// p = 1: a local copy (none in place).
#include <algorithm>
#include <vector>

#include "algorithms/common/cost_sum.hpp"
#include "algorithms/common/messages.hpp"
#include "algorithms/common/pow2_fold.hpp"
#include "algorithms/algorithm.hpp"

namespace cb::reduce_scatter {
namespace {

// The core ranks' shares of the vector (elements): virtual block u is
// [gp[u], gp[u+1]), also its place in the input vector.
struct Shares {
  std::vector<std::size_t> gp;
  int P;
  std::size_t n;

  Shares(const Pow2Fold& f, std::size_t c) : gp(fold_block_offsets(f, c)), P(f.p2), n(gp.back()) {}
  std::size_t size(int u) const { return gp[u + 1] - gp[u]; }
  // Elements in virtual blocks u0, u0+1, ... (cyclically) before u.
  std::size_t cyclic(int u0, int u) const { return u >= u0 ? gp[u] - gp[u0] : n - gp[u0] + gp[u]; }
  // Elements in the aligned run of w blocks starting at a.
  std::size_t run(int a, int w) const { return gp[a + w] - gp[a]; }
};

// Largest per-rank (sent or received, reduced) of round k.
std::pair<std::size_t, std::size_t> round_maxima(const Shares& s, int k) {
  const int m = 1 << k;
  std::size_t moved = 0, reduced = 0;
  for (int v = 0; v < s.P; ++v) {
    const int a = v & ~(m - 1), A = v & ~(2 * m - 1);
    moved = std::max(moved, s.n - s.run(a, m));
    reduced = std::max(reduced, s.n - s.run(A, 2 * m) + s.size(v));
  }
  return {moved, reduced};
}

}  // namespace

// Long on purpose: the rounds in the order they run, sharing one buffer plan.
void butterfly(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t c = params.count;
  const std::size_t n = c * static_cast<std::size_t>(p);
  const Region in_all{kInput, 0, n};
  const Region out{kOutput, 0, c};
  const Pow2Fold f(p);
  if (f.is_extra(r)) {
    b.step();
    b.send(f.core_of(r), in_all);
    idle_rounds(b, f.l);
    b.step();
    b.recv(f.core_of(r), out);
    return;
  }
  const Shares s(f, c);
  const int P = s.P, v = f.vrank(r);
  const BufferId W = b.add_scratch(n);
  const BufferId T = b.add_scratch(n);
  const BufferId X[2] = {b.add_scratch(n), f.l > 1 ? b.add_scratch(n) : W};
  // Position x of W holds virtual block (v + x) mod P.
  auto wpos = [&](int x) { return x == P ? n : s.cyclic(v, (v + x) % P); };
  auto wrange = [&](int x0, int x1) { return Region{W, wpos(x0), wpos(x1) - wpos(x0)}; };
  // Rotating `src` (a vector in rank order, buffer buf) into W, by copy or reduce.
  const std::size_t head = n - s.gp[v];  // elements from block v to the end
  auto rotate_into_w = [&](BufferId buf, bool reduce) {
    const Region parts[2][2] = {{{buf, s.gp[v], head}, {W, 0, head}},
                                {{buf, 0, s.gp[v]}, {W, head, s.gp[v]}}};
    for (const auto& part : parts) {
      if (part[0].count == 0) continue;
      if (reduce)
        b.reduce(part[0], part[1]);
      else
        b.copy(part[0], part[1]);
    }
  };
  b.step();  // the fold round, or a local-only step for a power of two
  rotate_into_w(kInput, false);
  if (const int x = f.extra_of(r); x >= 0) {
    b.recv(x, {T, 0, n});
    rotate_into_w(T, true);
  }
  b.copy({W, 0, n}, {X[0], 0, n});
  for (int k = 0; k < f.l; ++k) {
    b.step();
    const int m = 1 << k;
    const int a = v & ~(m - 1), A = v & ~(2 * m - 1);
    const int w = v ^ m, wa = w & ~(m - 1);
    const int peer = f.rank_of(w);
    const Region give = wrange(a + m - v, P - (v - a));
    b.send(peer, {X[k % 2], give.offset, give.count});
    // The partner's message: its blocks outside its group, in cyclic order
    // from the end of its group.
    const int u0 = (wa + m) % P;
    b.recv(peer, {T, 0, s.n - s.run(wa, m)});
    const std::size_t rest = s.n - s.run(A, 2 * m);  // blocks outside G_{k+1}
    const Region keep{W, wpos(A + 2 * m - v), rest};
    if (rest > 0) b.reduce({T, s.cyclic(u0, (A + 2 * m) % P), rest}, keep);
    b.reduce({T, s.cyclic(u0, v), s.size(v)}, {W, 0, s.size(v)});
    // What round k+1 sends: the blocks outside G_{k+1}.
    if (rest > 0) b.copy(keep, {X[(k + 1) % 2], keep.offset, rest});
  }
  // W starts with block r, then (folded) block r+1.
  b.copy({W, 0, c}, out);
  if (f.folds()) {
    b.step();
    if (const int x = f.extra_of(r); x >= 0) b.send(x, {W, c, c});
  }
}

Cost butterfly_cost(const CollParams& params) {
  const Pow2Fold f(params.p);
  const std::size_t c = params.count, es = params.elem_size();
  const Shares s(f, c);
  Cost rounds;
  for (int k = 0; k < f.l; ++k) {
    const auto [moved, reduced] = round_maxima(s, k);
    rounds.alpha += 1;
    rounds.beta += static_cast<double>(moved * es);
    rounds.gamma += static_cast<double>(reduced * es);
  }
  return cost_sum({fold_round_cost(f, s.n, es, true), rounds, fold_round_cost(f, c, es, false)});
}

}  // namespace cb::reduce_scatter
