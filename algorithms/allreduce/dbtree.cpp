// Algorithm: double binary tree all-reduce, pipelined (NCCL's "Tree";
// Sanders, Speck & Träff 2009).
// Restrictions: none (any p >= 1, any count; the ops are commutative).
// Idea: the vector is cut in two halves; half k is reduced up and broadcast
// down binary tree k of common/double_binary_tree.hpp. The trees are
// complementary (a rank is interior in at most one), so both halves move at
// once without one rank doing two trees' interior work. Each half is cut in
// C chunks and pipelined as global rounds: chunk c leaves a node of height h
// for its parent in round c + h (so a node has all its children's chunk c
// before it sends it), the root (height H = floor(log2 p)) holds it after
// round c + H - 1, and the broadcast sends it down to a child of height h in
// round H + c + (H - 1 - h). Both trees share the rounds: 2H + C - 1.
// Out of place, a rank first copies the input half it is interior for into
// the output (a local step) so children's chunks are reduced straight into it.
// Segments: C = ceil(half bytes / segment_bytes), at most the half's count;
// segment_bytes = 0 picks chunks of about 64 KiB, C between 1 and 64, which
// keeps the schedule at most 2H + 63 rounds (affordable at 16k ranks).
//
// Cost (H = floor(log2 p), n = count, s = element size, C chunks of half 0,
// chunk c = partition block c of a half):
//   Cost = sum over the 2H + C - 1 rounds of the per-round maxima of the Cost
//          convention. In steady state a rank receives two chunks (reduce)
//          and one (broadcast) in its interior tree and one (broadcast) in
//          its leaf tree, and sends as many, so with chunks of about n·s/(2C)
//          bytes:  α ≈ 4(2H + C - 1),  β ≈ 2·n·s·(1 + (2H-1)/C),
//          γ ≈ n·s·(1 + (2H-1)/C), less in the pipeline's fill and drain
//          (e.g. p = 16384, n·s = 64 MiB: 306α, 2.39·n·s·β, 1.20·n·s·γ).
//          For C ≫ H this is the table's ≈ 2nβ + nγ; its α (≈ 4L + fill)
//          counts differently: here every message a rank posts in a round
//          counts (params.hpp), four per steady-state round. With C = 1 (halves up to 64 KiB by
//          default) every message is a whole half: e.g. p = 16 costs 14α +
//          7·n·s·β + 3.5·n·s·γ against tree's 8α + 8·n·s·β + 4·n·s·γ.
//          dbtree_cost() counts the rounds exactly, one rank per kind of
//          (height, parent, children's heights) in both trees.
#include <array>
#include <cstdint>

#include "algorithms/algorithm.hpp"
#include "algorithms/common/double_binary_tree.hpp"
#include "algorithms/common/in_place.hpp"
#include "algorithms/common/pipeline.hpp"
#include "algorithms/common/round_cost.hpp"

namespace cb::allreduce {
namespace {

constexpr std::size_t kDefaultChunkBytes = 64 * 1024;
constexpr int kMaxDefaultChunks = 64;

struct Halves {
  Region in[2];
  Region out[2];
  int chunks[2];  // 0 for an empty half (count 1)
};

Halves halves(const CollParams& params) {
  Halves h{};
  const std::size_t n = params.count, es = params.elem_size();
  const std::size_t half0 = block_count(n, 2, 0);
  const auto want = static_cast<int>(std::clamp<std::size_t>(
      (half0 * es + kDefaultChunkBytes - 1) / kDefaultChunkBytes, 1, kMaxDefaultChunks));
  const int chunks = pipeline_chunks(half0, es, params.segment_bytes, want);
  for (int k = 0; k < 2; ++k) {
    const Block blk = block(n, 2, k);
    h.in[k] = {kInput, blk.offset, blk.count};
    h.out[k] = {kOutput, blk.offset, blk.count};
    h.chunks[k] =
        static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(chunks), blk.count));
  }
  return h;
}

std::int64_t rounds(const dbtree::DoubleBinaryTree& dt, const Halves& h) {
  return 2 * dt.height() + h.chunks[0] - 1;
}

template <class Sink>
void emit_round(Sink& s, const dbtree::DoubleBinaryTree& dt, const Halves& h, int r,
                std::int64_t t) {
  const int H = dt.height();
  for (int k = 0; k < 2; ++k) {
    const int chunks = h.chunks[k];
    if (chunks == 0) continue;
    const dbtree::Node node = dt.node(k, r);
    const bool interior = node.child[0] >= 0;
    auto chunk = [&](Region whole, std::int64_t c) {
      return chunk_of(whole, chunks, static_cast<int>(c));
    };
    auto valid = [&](std::int64_t c) { return c >= 0 && c < chunks; };
    // Reduce: chunk c leaves a node of height g in round c + g.
    for (int y : node.child) {
      if (y < 0) continue;
      const std::int64_t c = t - dt.height_of(k, y);
      if (valid(c)) s.recv_reduce(y, chunk(h.out[k], c));
    }
    if (node.parent >= 0) {
      const std::int64_t c = t - node.height;
      if (valid(c)) s.send(node.parent, chunk(interior ? h.out[k] : h.in[k], c));
    }
    // Broadcast: chunk c reaches a node of height g in round H + c + H-1-g.
    if (node.parent >= 0) {
      const std::int64_t c = t - H - (H - 1 - node.height);
      if (valid(c)) s.recv(node.parent, chunk(h.out[k], c));
    }
    for (int y : node.child) {
      if (y < 0) continue;
      const std::int64_t c = t - H - (H - 1 - dt.height_of(k, y));
      if (valid(c)) s.send(y, chunk(h.out[k], c));
    }
  }
}

}  // namespace

void dbtree(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const Halves h = halves(params);
  const dbtree::DoubleBinaryTree dt(p);
  b.set_segment_bytes(largest_chunk_bytes(h.in[0].count, h.chunks[0], params.elem_size()));
  if (!params.in_place) {  // every rank takes this step, even if it has nothing to copy
    b.step();
    for (int k = 0; k < 2; ++k)
      if (dt.node(k, r).child[0] >= 0) copy_unless_same(b, params, h.in[k], h.out[k]);
  }
  const std::int64_t n_rounds = rounds(dt, h);
  b.for_steps(static_cast<std::uint64_t>(n_rounds),
              [&](std::uint64_t t) { emit_round(b, dt, h, r, static_cast<std::int64_t>(t)); });
}

Cost dbtree_cost(const CollParams& params) {
  const Halves h = halves(params);
  const dbtree::DoubleBinaryTree dt(params.p);
  // A rank's ops depend only on its height, whether it has a parent and its
  // children's heights, in each tree.
  auto key = [&](int r) {
    std::array<int, 8> k{};
    for (int t = 0; t < 2; ++t) {
      const dbtree::Node n = dt.node(t, r);
      k[4 * t] = n.height;
      k[4 * t + 1] = n.parent >= 0;
      for (int c = 0; c < 2; ++c)
        k[4 * t + 2 + c] = n.child[c] < 0 ? -1 : dt.height_of(t, n.child[c]);
    }
    return k;
  };
  return tally_cost(params.p, static_cast<std::size_t>(rounds(dt, h)), params.elem_size(), key,
                    [&](RoundTally& s, int r, std::size_t t) {
                      emit_round(s, dt, h, r, static_cast<std::int64_t>(t));
                    });
}

}  // namespace cb::allreduce
