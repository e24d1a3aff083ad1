// Two complementary binary trees over p ranks (Sanders, Speck & Träff 2009;
// NCCL's "Tree"): each carries half of an all-reduce, and every rank is an
// interior node of at most one of them, so both trees' interior work and
// links are spread over all ranks.
//
// Shape of one tree, on positions 1..p (in-order numbering): position x with
// h = trailing zero bits of x sits at height h; its left child is x - 2^(h-1),
// its right child x + 2^(h-1), halving the offset while the position is past
// p; the root is the largest power of two <= p, at height H = floor(log2 p).
// Odd positions are the leaves, even ones interior.
// Tree 0 puts rank r at position r + 1 (odd ranks interior). Tree 1 puts it at
// p - r when p is even (mirror) and at ((r + 1) mod p) + 1 when p is odd
// (shift): in both cases its interior ranks are even and tree 0's are odd.
#pragma once

#include <bit>

#include "algorithms/common/partition.hpp"

namespace cb::dbtree {

struct Node {
  int parent = -1;          // rank, -1 at the root
  int child[2] = {-1, -1};  // ranks, -1 when absent
  int height = 0;           // leaves 0, the root H
};

class DoubleBinaryTree {
 public:
  explicit DoubleBinaryTree(int p) : p_(p), H_(floor_log2(p)) {}

  int ranks() const { return p_; }
  int height() const { return H_; }

  int position(int tree, int r) const {
    if (tree == 0) return r + 1;
    return p_ % 2 == 0 ? p_ - r : (r + 1) % p_ + 1;
  }
  int rank_at(int tree, int x) const {
    if (tree == 0) return x - 1;
    return p_ % 2 == 0 ? p_ - x : (x - 2 + p_) % p_;
  }

  Node node(int tree, int r) const {
    const int x = position(tree, r);
    const int h = std::countr_zero(static_cast<unsigned>(x));
    Node n;
    n.height = h;
    if (h > 0) {
      const int half = 1 << (h - 1);
      n.child[0] = rank_at(tree, x - half);
      int off = half;
      while (off > 0 && x + off > p_) off /= 2;
      if (off > 0) n.child[1] = rank_at(tree, x + off);
    }
    if (x != (1 << H_)) {
      const int up = 1 << h;
      int y = ((x >> h) & 3) == 1 ? x + up : x - up;
      if (y > p_) y = x - up;
      n.parent = rank_at(tree, y);
    }
    return n;
  }

  int height_of(int tree, int r) const {
    return std::countr_zero(static_cast<unsigned>(position(tree, r)));
  }

 private:
  int p_;
  int H_;
};

}  // namespace cb::dbtree
