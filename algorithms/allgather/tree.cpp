// Algorithm: binomial all-gather = binomial gather to rank 0, then binomial
// broadcast of the gathered p·n elements from rank 0.
// Restrictions: none (any p, any count).
// Idea: in the gather (common/binomial_tree.hpp), the ranks at level k send
// their subtree's blocks, contiguous because subtrees are rank ranges, to
// their parent in round k, straight into the output's block positions; the
// broadcast (optionally pipelined in chunks, chunk c crossing the level-k
// edges in round c + L-1-k) then sends all p·n elements down the same edges.
// A rank with children copies its own block into place in round 0 (in place
// it is already there); a leaf sends its input.
// Segments: CollParams::segment_bytes sets the broadcast's chunk (C =
// ceil(p·n·s / segment), at most p·n); 0 = unsegmented (C = 1).
//
// Cost (L = ceil(log2 p), n = count = elements per block, s = element size):
//   C = 1:  Cost = 2L·α + (p - 1 + L·p)·n·s·β
//           (gather: min(2^k, p - 2^k) blocks at level k, p - 1 in all for any
//           p; broadcast: the whole p·n in each of its L rounds). Not in
//           algorithms/README.md's table (binomial gather + binomial broadcast).
//   C > 1:  the gather's L rounds above, plus the L + C - 1 pipelined
//           broadcast rounds summed round by round (chunk c = partition block
//           c of p·n into C). tree_cost() tallies one rank per (level,
//           #children, subtree size).
#include "algorithms/algorithm.hpp"
#include "algorithms/common/binomial_tree.hpp"
#include "algorithms/common/in_place.hpp"

namespace cb::allgather {
namespace {

// The broadcast pipelines the gathered p·n elements.
int chunks_for(const CollParams& params) {
  return binomial::chunks_of(params, static_cast<std::size_t>(params.p) * params.count);
}

template <class Sink>
void emit_round(Sink& s, const binomial::Tree& tree, int r, std::int64_t t, int chunks,
                std::size_t n) {
  if (t < tree.L) {
    binomial::gather_round(s, tree, r, static_cast<int>(t), n, {kInput, 0, n}, kOutput);
    return;
  }
  const std::size_t total = static_cast<std::size_t>(tree.p) * n;
  binomial::broadcast_round(s, tree, r, t - tree.L, chunks, {kOutput, 0, total});
}

}  // namespace

void tree(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count, total = static_cast<std::size_t>(p) * n;
  const Region in{kInput, 0, n}, own{kOutput, static_cast<std::size_t>(r) * n, n};
  const bool own_in_place = same_memory(params, in, own);
  const binomial::Tree tr(p);
  const int chunks = chunks_for(params);
  binomial::record_segment(b, params, total, chunks);
  const std::int64_t rounds = tr.L + binomial::pipeline_rounds(tr, chunks);
  b.for_steps(static_cast<std::uint64_t>(rounds), [&](std::uint64_t t) {
    emit_round(b, tr, r, static_cast<std::int64_t>(t), chunks, n);
    // Ranks with children send their own block from the output, from round 1 on.
    if (t == 0 && tr.children(r) > 0 && !own_in_place) b.copy(in, own);
  });
  // A leaf's own block arrives with the broadcast.
}

Cost tree_cost(const CollParams& params) {
  const binomial::Tree tr(params.p);
  const int chunks = chunks_for(params);
  const auto rounds = static_cast<std::size_t>(tr.L + binomial::pipeline_rounds(tr, chunks));
  return binomial::tally_by_position(tr, params, rounds, [&](RoundTally& s, int r, std::size_t t) {
    emit_round(s, tr, r, static_cast<std::int64_t>(t), chunks, params.count);
  });
}

}  // namespace cb::allgather
