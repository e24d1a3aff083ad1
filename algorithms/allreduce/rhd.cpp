// Algorithm: recursive halving-doubling all-reduce (Rabenseifner): recursive-
// halving reduce-scatter followed by recursive-doubling all-gather.
// Restrictions: none; any p (non-powers of two fold, below), any count.
// Idea: the p' = 2^l core ranks cut the vector into p' blocks (partition.hpp).
// Halving: in round k a rank exchanges half of its current range with the
// rank at distance p'/2^(k+1) and reduces the half it keeps, until it owns one
// block reduced over everyone. Doubling retraces the rounds in reverse and
// gathers the reduced blocks. For p not a power of two, e = p - p' ranks fold
// first (pow2_fold.hpp: rank 2i+1 sends its whole vector to 2i, which reduces
// it) and get the result back in one final round.
// Cost = 2l·alpha + 2·H·beta + H·gamma, H = sum over w = 1, 2, ..., p'/2 of the
// bytes in the first w blocks (the largest w-block range) = (p'-1)/p'·n when
// p' divides n; plus, if p is not a power of two, 2·alpha + 2n·beta + n·gamma
// (fold and unfold of the whole vector). This is the table's
// (2l+2)α + (2(p'-1)/p' + 2)nβ + (1 + (p'-1)/p')nγ.
// p = 1: a local copy (none in place).
#include "algorithms/algorithm.hpp"
#include "algorithms/common/cost_sum.hpp"
#include "algorithms/common/pow2_fold.hpp"
#include "algorithms/common/recursive_phases.hpp"

namespace cb::allreduce {

void rhd(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region out_all{kOutput, 0, n};
  const Region in_all{params.in_place ? kOutput : kInput, 0, n};
  const Pow2Fold f(p);
  bool own_in_out = params.in_place;
  if (f.folds()) {
    b.step();
    if (f.is_extra(r)) {
      b.send(f.core_of(r), in_all);
    } else if (const int x = f.extra_of(r); x >= 0) {
      if (own_in_out) {
        b.recv_reduce(x, out_all);
      } else {
        recv_reduce_from(b, x, in_all, out_all, b.add_scratch(n));
        own_in_out = true;
      }
    }
  }
  if (f.is_extra(r)) {
    idle_rounds(b, 2 * f.l);
  } else {
    const int v = f.vrank(r);
    auto rank_of = [f](int u) { return f.rank_of(u); };
    const auto off = partition_offset_fn(n, f.p2);
    HalvingPlan half{VirtualBlocks{kOutput, 0, off}, std::nullopt, kOutput, rank_of};
    if (!own_in_out) {
      half.contrib = VirtualBlocks{kInput, 0, off};
      half.temp = b.add_scratch(half.work.largest_half(f.p2));
    }
    recursive_halving_phase(b, f.p2, v, half);
    recursive_doubling_phase(b, f.p2, v, DoublingPlan{half.work, std::nullopt, rank_of});
  }
  unfold_round(b, f, r, out_all);
}

Cost rhd_cost(const CollParams& params) {
  const Pow2Fold f(params.p);
  const std::size_t n = params.count, es = params.elem_size();
  const std::vector<std::size_t> off = partition_offsets(n, f.p2);
  return cost_sum({fold_round_cost(f, n, es, true), recursive_phase_cost(off, es, true),
                   recursive_phase_cost(off, es, false), fold_round_cost(f, n, es, false)});
}

}  // namespace cb::allreduce
