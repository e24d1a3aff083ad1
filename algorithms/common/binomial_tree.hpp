// The binomial tree rooted at rank 0, and its reduce, broadcast, gather and
// scatter as per-round emitters.
//
// Shape: L = ceil(log2 p) levels. Rank r != 0 hangs below r - 2^level(r),
// where level(r) = the number of trailing zero bits of r (the root's level is
// L). r's children are r + 2^k for k = 0 .. children(r)-1: the levels below
// its own whose child exists (r + 2^k < p); they always form a prefix. The
// subtree of r is the contiguous rank range [r, subtree_end(r)), which is why
// gather and scatter of per-rank blocks move one contiguous message per edge.
//
// Emitters add one round's ops for one rank to a Sink with ScheduleBuilder's
// op interface (ScheduleBuilder itself, or RoundTally for the cost), so the
// caller decides which step each round lands in and can overlap phases.
// Chunks pipeline reduce and broadcast: chunk c moves one level per round.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <tuple>

#include "algorithms/builder.hpp"
#include "algorithms/common/partition.hpp"
#include "algorithms/common/pipeline.hpp"
#include "algorithms/common/round_cost.hpp"
#include "algorithms/params.hpp"
#include "algorithms/schedule.hpp"

namespace cb::binomial {

struct Tree {
  explicit Tree(int ranks) : p(ranks), L(ceil_log2(ranks)) {}

  int p;
  int L;  // levels = rounds of an unpipelined reduce, broadcast, gather or scatter

  int level(int r) const { return r == 0 ? L : std::countr_zero(static_cast<unsigned>(r)); }
  int parent(int r) const { return r - (1 << level(r)); }
  int child(int r, int k) const { return r + (1 << k); }
  // Number of children: levels k < level(r) with r + 2^k < p.
  int children(int r) const {
    int k = 0;
    while (k < level(r) && r + (1 << k) < p) ++k;
    return k;
  }
  // One past the last rank of r's subtree.
  int subtree_end(int r) const {
    return r == 0 ? p
                  : static_cast<int>(
                        std::min<std::int64_t>(std::int64_t{r} + (std::int64_t{1} << level(r)), p));
  }
};

// Rounds of a pipelined reduce or broadcast of `chunks` chunks.
inline std::int64_t pipeline_rounds(const Tree& tree, int chunks) { return tree.L + chunks - 1; }

// Chunks the pipelined phase of a tree algorithm cuts its vector of `elems`
// elements into: CollParams::segment_bytes each, 1 when unsegmented, 0 when
// the vector is empty (common/pipeline.hpp).
inline int chunks_of(const CollParams& params, std::size_t elems) {
  return pipeline_chunks(elems, params.elem_size(), params.segment_bytes, 1);
}

// Sets the schedule's segment_bytes to the pipelined phase's largest chunk
// (bytes); leaves it alone when the phase is not pipelined.
inline void record_segment(ScheduleBuilder& b, const CollParams& params, std::size_t elems,
                           int chunks) {
  if (chunks > 1) b.set_segment_bytes(largest_chunk_bytes(elems, chunks, params.elem_size()));
}

// Cost of `rounds` rounds of a tree algorithm whose ranks behave alike when
// they share level, number of children and subtree size, so each such kind
// is tallied once (common/round_cost.hpp); emit(tally, r, t) as there.
template <class EmitFn>
Cost tally_by_position(const Tree& tree, const CollParams& params, std::size_t rounds,
                       EmitFn emit) {
  return tally_cost(
      params.p, rounds, params.elem_size(),
      [&](int r) { return std::tuple{tree.level(r), tree.children(r), tree.subtree_end(r) - r}; },
      emit);
}

// Round t of a reduce to rank 0 of `chunks` chunks: rank r receives chunk c
// from its child at level k in round c + k and sends it to its parent in round
// c + level(r). `src` is r's contribution, `acc` its accumulator (same count);
// a rank with children reduces into acc, which must already hold src's values
// (the caller copies them in an earlier step, or acc is src in place); a leaf
// sends straight from src.
template <class Sink>
void reduce_round(Sink& s, const Tree& tree, int r, std::int64_t t, int chunks, Region src,
                  Region acc) {
  const int nchild = tree.children(r);
  for (int k = 0; k < nchild; ++k) {
    const std::int64_t c = t - k;
    if (c >= 0 && c < chunks)
      s.recv_reduce(tree.child(r, k), chunk_of(acc, chunks, static_cast<int>(c)));
  }
  if (r != 0) {
    const std::int64_t c = t - tree.level(r);
    if (c >= 0 && c < chunks)
      s.send(tree.parent(r), chunk_of(nchild > 0 ? acc : src, chunks, static_cast<int>(c)));
  }
}

// Round t of a broadcast from rank 0 of `buf` (the root holds it, the others
// receive it in place) in `chunks` chunks: chunk c crosses the level-k edges
// in round c + (L-1-k), so rank r receives it in round c + L-1-level(r).
template <class Sink>
void broadcast_round(Sink& s, const Tree& tree, int r, std::int64_t t, int chunks, Region buf) {
  if (r != 0) {
    const std::int64_t c = t - (tree.L - 1 - tree.level(r));
    if (c >= 0 && c < chunks) s.recv(tree.parent(r), chunk_of(buf, chunks, static_cast<int>(c)));
  }
  const int nchild = tree.children(r);
  for (int k = nchild - 1; k >= 0; --k) {
    const std::int64_t c = t - (tree.L - 1 - k);
    if (c >= 0 && c < chunks) s.send(tree.child(r, k), chunk_of(buf, chunks, static_cast<int>(c)));
  }
}

// Blocks [first, last) of a buffer of blocks of `n` elements each.
inline Region blocks(BufferId buf, std::size_t n, int first, int last) {
  return {buf, static_cast<std::size_t>(first) * n, static_cast<std::size_t>(last - first) * n};
}

// Round k (0 <= k < L) of a gather to rank 0 of one block of n elements per
// rank, into `out` (blocks in rank order): in round k the ranks at level k
// send their subtree's blocks to their parent. A leaf's subtree is its own
// block, sent from `own`; other ranks send from `out`, so they must have put
// their own block there before their round (round 0's locals will do).
template <class Sink>
void gather_round(Sink& s, const Tree& tree, int r, int k, std::size_t n, Region own,
                  BufferId out) {
  const int nchild = tree.children(r);
  if (k < nchild) {
    const int c = tree.child(r, k);
    s.recv(c, blocks(out, n, c, tree.subtree_end(c)));
  }
  if (r != 0 && tree.level(r) == k)
    s.send(tree.parent(r), nchild == 0 ? own : blocks(out, n, r, tree.subtree_end(r)));
}

// Round j (0 <= j < L) of a scatter from rank 0 of one block of n elements per
// rank, from `held` (blocks in rank order): the level-(L-1-j) edges carry the
// child's subtree's blocks. A rank with children receives its subtree's blocks
// into `held`; a leaf receives its own block into `leaf_dst`.
template <class Sink>
void scatter_round(Sink& s, const Tree& tree, int r, int j, std::size_t n, BufferId held,
                   Region leaf_dst) {
  const int k = tree.L - 1 - j;
  const int nchild = tree.children(r);
  if (r != 0 && tree.level(r) == k)
    s.recv(tree.parent(r), nchild == 0 ? leaf_dst : blocks(held, n, r, tree.subtree_end(r)));
  if (k < nchild) {
    const int c = tree.child(r, k);
    s.send(c, blocks(held, n, c, tree.subtree_end(c)));
  }
}

}  // namespace cb::binomial
