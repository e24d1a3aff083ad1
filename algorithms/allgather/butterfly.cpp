// Algorithm: butterfly all-gather (recursive doubling in butterfly order:
// the partner distance halves, p'/2, p'/4, ..., 1, as in a butterfly network).
// Restrictions: none; any p (non-powers of two fold, below), any count
// (count = elements per rank).
// Idea: in round k rank v exchanges everything gathered so far with
// v ^ (p'/2^(k+1)). Compared with rhd (MPICH's order, distance 1 first) the
// largest messages go to the nearest partners instead of the farthest, which
// matters on hierarchical networks; rounds and volume are the same. The
// blocks a rank holds after k rounds share their low l-k bits, which is not
// a contiguous run of the output, so they are gathered in a scratch vector in
// bit-reversed order (where they are contiguous: one message per round) and
// copied to their places in the output after the last round. For p not a
// power of two (pow2_fold.hpp) rank 2i+1 first sends its block to rank 2i,
// which then stands for both, and a last round sends the whole result back.
// Cost = l·alpha + H·beta, H = sum over w = 1, 2, ..., p'/2 of the largest
// run of w aligned blocks in bit-reversed order (a core rank's block is 2c
// bytes for v < e, else c); for powers of two H = (p-1)/p·n (n = p·c), the
// table's lg p·α + (p-1)/p·nβ. If p is not a power of two add
// 2·alpha + (c + n)·beta for the fold (one block) and unfold (everything).
// p = 1: a local copy (none in place).
#include "algorithms/algorithm.hpp"
#include "algorithms/common/cost_sum.hpp"
#include "algorithms/common/pow2_fold.hpp"
#include "algorithms/common/recursive_phases.hpp"

namespace cb::allgather {
namespace {

// Offsets of the core ranks' shares stored in bit-reversed virtual order.
std::vector<std::size_t> butterfly_offsets(const Pow2Fold& f, std::size_t c) {
  return offsets_of_sizes(
      f.p2, [&](int x) { return static_cast<std::size_t>(f.width(reverse_bits(x, f.l))) * c; });
}

}  // namespace

void butterfly(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t c = params.count;
  const std::size_t n = c * static_cast<std::size_t>(p);
  const Region own_in{kInput, 0, c};
  const Region out_all{kOutput, 0, n};
  const Pow2Fold f(p);
  const bool extra = f.is_extra(r);
  const BufferId stage = extra ? kOutput : b.add_scratch(n);
  const VirtualBlocks work{stage, 0, table_offsets(butterfly_offsets(f, c))};
  const int x = extra ? 0 : reverse_bits(f.vrank(r), f.l);  // this rank's place in `work`
  std::optional<Region> own_input;
  if (f.folds()) {
    b.step();
    if (extra) {
      b.send(f.core_of(r), own_in);
    } else {
      const Region mine = work.range(x, x + 1);
      if (const int xr = f.extra_of(r); xr >= 0) b.recv(xr, {stage, mine.offset + c, c});
      b.copy(own_in, {stage, mine.offset, c});
    }
  } else {
    own_input = own_in;
  }
  if (extra) {
    idle_rounds(b, f.l);
  } else {
    recursive_doubling_phase(b, f.p2, x, DoublingPlan{work, own_input, [f](int y) {
                                                        return f.rank_of(reverse_bits(y, f.l));
                                                      }});
    for (int y = 0; y < f.p2; ++y) {
      Region from = work.range(y, y + 1);
      auto first = static_cast<std::size_t>(f.first_rank(reverse_bits(y, f.l)));
      if (y == x && params.in_place) {
        // The own block is in place already (and may be what this step sends).
        from = {from.buf, from.offset + c, from.count - c};
        ++first;
      }
      if (from.count > 0) b.copy(from, {kOutput, first * c, from.count});
    }
  }
  unfold_round(b, f, r, out_all);
}

Cost butterfly_cost(const CollParams& params) {
  const Pow2Fold f(params.p);
  const std::size_t c = params.count, es = params.elem_size();
  const std::size_t n = c * static_cast<std::size_t>(params.p);
  return cost_sum({fold_round_cost(f, c, es, false),
                   recursive_phase_cost(butterfly_offsets(f, c), es, false),
                   fold_round_cost(f, n, es, false)});
}

}  // namespace cb::allgather
