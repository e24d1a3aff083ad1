// Algorithm: recursive-doubling all-gather (as in MPICH: the partner
// distance doubles, 1, 2, 4, ..., so the data a rank holds is always one
// contiguous run of blocks).
// Restrictions: none; any p (non-powers of two fold, below), any count
// (count = elements per rank). MPICH 4.0.2's own version asserts a power of
// two; collbench folds instead.
// Idea: in round k rank v exchanges everything it has gathered so far (2^k
// aligned blocks) with v ^ 2^k; after l = log2 p' rounds everyone has
// everything. For p not a power of two (pow2_fold.hpp) rank 2i+1 first sends
// its block to rank 2i, which then stands for both (its "block" is the two
// adjacent blocks 2i, 2i+1, so ranges are uneven: w virtual blocks hold at
// most w + min(w, e) real ones), and a last round sends the whole result back.
// Cost = l·alpha + H·beta, H = sum over w = 1, 2, ..., p'/2 of (w + min(w, e))·c
// bytes (c = count in bytes) = (p-1)/p·n for powers of two (n = p·c, the
// table's lg p·α + (p-1)/p·nβ); if p is not a power of two add
// 2·alpha + (c + n)·beta for the fold (one block) and unfold (everything).
// p = 1: a local copy (none in place).
#include "algorithms/algorithm.hpp"
#include "algorithms/common/cost_sum.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/common/pow2_fold.hpp"
#include "algorithms/common/recursive_phases.hpp"

namespace cb::allgather {
void rhd(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t c = params.count;
  const std::size_t n = c * static_cast<std::size_t>(p);
  const Region own_in{kInput, 0, c};
  const Region own_out{kOutput, static_cast<std::size_t>(r) * c, c};
  const Region out_all{kOutput, 0, n};
  const Pow2Fold f(p);
  std::optional<Region> own_input;
  if (f.folds()) {
    b.step();
    if (f.is_extra(r)) {
      b.send(f.core_of(r), own_in);
    } else {
      if (const int x = f.extra_of(r); x >= 0)
        b.recv(x, {kOutput, static_cast<std::size_t>(x) * c, c});
      copy_unless_same(b, params, own_in, own_out);
    }
  } else if (!params.in_place) {
    own_input = own_in;
  }
  if (f.is_extra(r)) {
    idle_rounds(b, f.l);
  } else {
    recursive_doubling_phase(b, f.p2, f.vrank(r),
                             DoublingPlan{VirtualBlocks{kOutput, 0, fold_block_offset_fn(f, c)},
                                          own_input, [f](int u) { return f.rank_of(u); }});
  }
  unfold_round(b, f, r, out_all);
}

Cost rhd_cost(const CollParams& params) {
  const Pow2Fold f(params.p);
  const std::size_t c = params.count, es = params.elem_size();
  const std::size_t n = c * static_cast<std::size_t>(params.p);
  return cost_sum({fold_round_cost(f, c, es, false),
                   recursive_phase_cost(fold_block_offsets(f, c), es, false),
                   fold_round_cost(f, n, es, false)});
}

}  // namespace cb::allgather
