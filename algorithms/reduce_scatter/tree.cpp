// Algorithm: binomial reduce-scatter = binomial reduce of the whole p·n
// vector to rank 0, then binomial scatter of its blocks from rank 0.
// Restrictions: none (any p, any count; the ops are commutative).
// Idea: common/binomial_tree.hpp's reduce (optionally pipelined in chunks,
// chunk c crossing level k in round c + k) leaves the full result at the root;
// the scatter then sends each child its subtree's blocks, which are
// contiguous because subtrees are rank ranges. Ranks with children reduce into
// and scatter from a scratch vector of p·n elements that a local step 0 fills
// with their input; leaves send their input and receive only their own block.
// Segments: CollParams::segment_bytes sets the reduce's chunk (C = ceil(p·n·s
// / segment), at most p·n); 0 = unsegmented (C = 1). The scatter is not
// pipelined: it starts once the root holds the last chunk.
//
// Cost (L = ceil(log2 p), n = count = elements per block, s = element size):
//   C = 1:  Cost = 2L·α + (L·p + p - 1)·n·s·β + L·p·n·s·γ
//           (the table's L + (p-1)/p and L of the p·n input: each reduce round
//           moves the whole vector, the scatter rounds move min(2^k, p - 2^k)
//           blocks at level k, which sum to p - 1 for any p)
//   C > 1:  the L + C - 1 pipelined reduce rounds are summed round by round
//           as in allreduce/tree.cpp, plus the scatter's L rounds above.
//           tree_cost() tallies one rank per (level, #children, subtree size).
#include "algorithms/common/binomial_tree.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/algorithm.hpp"

namespace cb::reduce_scatter {
namespace {

// The reduce pipelines the whole p·n vector.
int chunks_for(const CollParams& params) {
  return binomial::chunks_of(params, static_cast<std::size_t>(params.p) * params.count);
}

// Communicating round t of rank r; `held` is r's p·n scratch vector (only
// ranks with children have one).
template <class Sink>
void emit_round(Sink& s, const binomial::Tree& tree, int r, std::int64_t t, int chunks,
                std::size_t n, BufferId held) {
  const std::size_t total = static_cast<std::size_t>(tree.p) * n;
  const std::int64_t reduce_rounds = binomial::pipeline_rounds(tree, chunks);
  const Region in{kInput, 0, total}, out{kOutput, 0, n};
  if (t < reduce_rounds) {
    binomial::reduce_round(s, tree, r, t, chunks, in, {held, 0, total});
    return;
  }
  const int j = static_cast<int>(t - reduce_rounds);
  binomial::scatter_round(s, tree, r, j, n, held, out);
  const bool got_mine = r == 0 ? j == 0 : tree.level(r) == tree.L - 1 - j;
  if (got_mine && tree.children(r) > 0) s.copy(binomial::blocks(held, n, r, r + 1), out);
}

}  // namespace

void tree(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count, total = static_cast<std::size_t>(p) * n;
  const binomial::Tree tr(p);
  const int chunks = chunks_for(params);
  binomial::record_segment(b, params, total, chunks);
  const bool has_children = tr.children(r) > 0;
  const BufferId held = has_children ? b.add_scratch(total) : kInput;
  b.step();  // local: the accumulator starts as the rank's input
  if (has_children) b.copy({kInput, 0, total}, {held, 0, total});
  const std::int64_t rounds = binomial::pipeline_rounds(tr, chunks) + tr.L;
  b.for_steps(static_cast<std::uint64_t>(rounds), [&](std::uint64_t t) {
    emit_round(b, tr, r, static_cast<std::int64_t>(t), chunks, n, held);
  });
}

Cost tree_cost(const CollParams& params) {
  const binomial::Tree tr(params.p);
  const int chunks = chunks_for(params);
  const auto rounds = static_cast<std::size_t>(binomial::pipeline_rounds(tr, chunks) + tr.L);
  return binomial::tally_by_position(tr, params, rounds, [&](RoundTally& s, int r, std::size_t t) {
    emit_round(s, tr, r, static_cast<std::int64_t>(t), chunks, params.count,
               tr.children(r) > 0 ? kScratch0 : kInput);
  });
}

}  // namespace cb::reduce_scatter
