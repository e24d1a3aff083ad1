// Algorithm: binomial-tree all-reduce = binomial reduce to rank 0 followed by
// binomial broadcast from rank 0, optionally pipelined in chunks.
// Restrictions: none (any p, any count; the ops are commutative).
// Idea: in the reduce, rank r receives from its children r + 2^k (k below the
// lowest set bit of r) and sends the partial result to r - 2^lowbit(r); the
// broadcast runs the same edges backwards (common/binomial_tree.hpp). With
// C chunks, chunk c crosses tree level k of the reduce in round c + k and the
// broadcast starts as soon as the root holds chunk 0, so the two phases
// overlap: 2L + C - 1 rounds instead of 2L·C.
// Segments: CollParams::segment_bytes sets the chunk (C = ceil(n·s / segment),
// at most count); 0 = unsegmented (C = 1), the textbook algorithm.
// Out of place, ranks with children first copy the input into the output
// (a local step, as MPICH does) so every message is reduced straight into it.
//
// Cost (L = ceil(log2 p), n = count, s = element size):
//   C = 1:  Cost = 2L·α + 2L·n·s·β + L·n·s·γ   (the algorithms/README.md row)
//   C > 1:  Cost = sum over the 2L + C - 1 rounds of the per-round maxima of
//           the Cost convention, with chunk c = partition block c of n into C
//           (a rank may post up to one message per tree level in a round, so
//           α per round lies between 1 and L). tree_cost() runs the round
//           emitters on one rank of each (level, #children) kind and sums the
//           maxima: exact, and O(p + L^3·(2L+C)) work.
#include <utility>

#include "algorithms/algorithm.hpp"
#include "algorithms/common/binomial_tree.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/common/round_cost.hpp"

namespace cb::allreduce {
namespace {

int chunks_for(const CollParams& params) { return binomial::chunks_of(params, params.count); }

// Communicating round t of rank r: the reduce's rounds [0, L+C-1) overlap the
// broadcast's, which start at round L.
template <class Sink>
void emit_round(Sink& s, const binomial::Tree& tree, int r, std::int64_t t, int chunks,
                std::size_t n) {
  const Region in{kInput, 0, n}, out{kOutput, 0, n};
  binomial::reduce_round(s, tree, r, t, chunks, in, out);
  binomial::broadcast_round(s, tree, r, t - tree.L, chunks, out);
}

}  // namespace

void tree(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region in{kInput, 0, n}, out{kOutput, 0, n};
  const binomial::Tree tr(p);
  const int chunks = chunks_for(params);
  binomial::record_segment(b, params, n, chunks);
  if (!params.in_place) {  // every rank takes this step, even if it has nothing to copy
    b.step();
    if (tr.children(r) > 0) b.copy(in, out);
  }
  const std::int64_t rounds = 2 * tr.L + chunks - 1;
  b.for_steps(static_cast<std::uint64_t>(rounds), [&](std::uint64_t t) {
    emit_round(b, tr, r, static_cast<std::int64_t>(t), chunks, n);
  });
}

Cost tree_cost(const CollParams& params) {
  const binomial::Tree tr(params.p);
  const int chunks = chunks_for(params);
  const auto rounds = static_cast<std::size_t>(2 * tr.L + chunks - 1);
  return tally_cost(
      params.p, rounds, params.elem_size(),
      [&](int r) {
        return std::pair{tr.level(r), tr.children(r)};
      },
      [&](RoundTally& s, int r, std::size_t t) {
        emit_round(s, tr, r, static_cast<std::int64_t>(t), chunks, params.count);
      });
}

}  // namespace cb::allreduce
