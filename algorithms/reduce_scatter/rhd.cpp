// Algorithm: recursive-halving reduce-scatter.
// Restrictions: none; any p (non-powers of two fold, below), any count
// (count = elements per rank's block). Needs a commutative op, as all of
// collbench's are.
// Idea: in round k a core rank exchanges with the rank at distance
// p'/2^(k+1): the pair splits its current range of blocks in halves, each
// sends the half the other keeps and reduces the half it keeps; after l =
// log2 p' rounds each rank owns its own block. For p not a power of two
// (pow2_fold.hpp) rank 2i+1 first sends its whole vector to rank 2i, which
// reduces it and from then on stands for both ranks: its "block" is the two
// adjacent blocks 2i, 2i+1, so halves are uneven (a half of w virtual blocks
// holds w + min(w, e) real ones at most); a last round returns block 2i+1.
// In place the partial sums live in the input vector; out of place in a
// scratch vector, and the own block is copied to the output at the end.
// Cost = l·alpha + H·(beta + gamma), H = sum over w = 1, 2, ..., p'/2 of
// (w + min(w, e))·c bytes (c = count in bytes) = (p-1)/p·n for powers of two
// (n = p·c, the table's lg p·α + (p-1)/p·n(β+γ)); if p is not a power of two
// add 2·alpha + (n + c)·beta + n·gamma for the fold (whole vector, reduced)
// and the unfold (one block). The table's "≈ 2 steps and ≈ n(β+γ)".
// p = 1: a local copy (none in place).
#include "algorithms/common/cost_sum.hpp"
#include "algorithms/common/pow2_fold.hpp"
#include "algorithms/common/recursive_phases.hpp"
#include "algorithms/algorithm.hpp"

namespace cb::reduce_scatter {
void rhd(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t c = params.count;
  const std::size_t n = c * static_cast<std::size_t>(p);
  const Region in_all{kInput, 0, n};
  const Region out{kOutput, 0, c};
  const Pow2Fold f(p);
  // The vector partial sums accumulate in: the input itself in place.
  BufferId work = kInput;
  if (!params.in_place && !f.is_extra(r)) work = b.add_scratch(n);
  bool own_in_work = params.in_place;
  if (f.folds()) {
    b.step();
    if (f.is_extra(r)) {
      b.send(f.core_of(r), in_all);
    } else if (const int x = f.extra_of(r); x >= 0) {
      if (own_in_work) {
        b.recv_reduce(x, in_all);
      } else {
        recv_reduce_from(b, x, in_all, {work, 0, n}, b.add_scratch(n));
        own_in_work = true;
      }
    }
  }
  if (f.is_extra(r)) {
    idle_rounds(b, f.l);
  } else {
    const int v = f.vrank(r);
    const auto off = fold_block_offset_fn(f, c);
    HalvingPlan half{VirtualBlocks{work, 0, off}, std::nullopt, kOutput,
                     [f](int u) { return f.rank_of(u); }};
    if (!own_in_work) {
      half.contrib = VirtualBlocks{kInput, 0, off};
      half.temp = b.add_scratch(half.work.largest_half(f.p2));
    }
    recursive_halving_phase(b, f.p2, v, half);
    // Block r is the first of the super-block this rank owns now.
    if (!params.in_place) b.copy({work, static_cast<std::size_t>(r) * c, c}, out);
  }
  if (f.folds()) {
    b.step();
    if (f.is_extra(r))
      b.recv(f.core_of(r), out);
    else if (const int x = f.extra_of(r); x >= 0)
      b.send(x, {work, static_cast<std::size_t>(x) * c, c});
  }
}

Cost rhd_cost(const CollParams& params) {
  const Pow2Fold f(params.p);
  const std::size_t c = params.count, es = params.elem_size();
  const std::size_t n = c * static_cast<std::size_t>(params.p);
  return cost_sum({fold_round_cost(f, n, es, true),
                   recursive_phase_cost(fold_block_offsets(f, c), es, true),
                   fold_round_cost(f, c, es, false)});
}

}  // namespace cb::reduce_scatter
