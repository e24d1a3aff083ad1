// The tree building blocks on their own: the binomial tree's shape (the
// subtree rank ranges gather and scatter rely on), the double binary tree's
// complementarity (every rank interior in at most one tree) and heights (the
// pipelined schedule's timing relies on), chunk counts, and RoundTally's
// convention, so a regression there is named directly.
#include <gtest/gtest.h>

#include <vector>

#include "algorithms/common/binomial_tree.hpp"
#include "algorithms/common/double_binary_tree.hpp"
#include "algorithms/common/pipeline.hpp"
#include "algorithms/common/round_cost.hpp"

namespace cb {
namespace {

TEST(BinomialTree, ChildrenParentsAndSubtreeRanges) {
  for (int p = 1; p <= 300; ++p) {
    const binomial::Tree t(p);
    EXPECT_EQ(t.L, ceil_log2(p));
    EXPECT_EQ(t.children(0), t.L) << p;
    EXPECT_EQ(t.subtree_end(0), p);
    for (int r = 0; r < p; ++r) {
      int covered = r + 1;  // children's subtrees tile [r+1, subtree_end(r))
      for (int k = 0; k < t.children(r); ++k) {
        const int c = t.child(r, k);
        ASSERT_LT(c, p);
        EXPECT_EQ(t.parent(c), r) << "p=" << p << " child " << c;
        EXPECT_EQ(t.level(c), k);
        EXPECT_EQ(c, covered) << "p=" << p << " rank " << r;
        covered = t.subtree_end(c);
      }
      EXPECT_EQ(covered, t.subtree_end(r)) << "p=" << p << " rank " << r;
      if (t.children(r) < (r == 0 ? t.L : t.level(r))) {  // a missing child is past p
        EXPECT_GE(r + (1 << t.children(r)), p);
      }
    }
  }
}

TEST(DoubleBinaryTree, TwoTreesEachRankInteriorInAtMostOne) {
  for (int p = 1; p <= 2100; ++p) {
    const dbtree::DoubleBinaryTree dt(p);
    std::vector<int> interior(static_cast<std::size_t>(p), 0);
    for (int tree = 0; tree < 2; ++tree) {
      int roots = 0;
      for (int r = 0; r < p; ++r) {
        ASSERT_EQ(dt.rank_at(tree, dt.position(tree, r)), r);
        const dbtree::Node n = dt.node(tree, r);
        EXPECT_EQ(n.height, dt.height_of(tree, r));
        if (n.parent < 0) {
          ++roots;
          EXPECT_EQ(n.height, dt.height()) << "p=" << p;
        } else {
          const dbtree::Node up = dt.node(tree, n.parent);
          EXPECT_TRUE(up.child[0] == r || up.child[1] == r) << "p=" << p << " rank " << r;
          EXPECT_GT(up.height, n.height);
        }
        int nchild = 0;
        for (int c : n.child)
          if (c >= 0) {
            ++nchild;
            EXPECT_EQ(dt.node(tree, c).parent, r) << "p=" << p << " tree " << tree;
          }
        EXPECT_EQ(nchild > 0, n.child[0] >= 0);  // a right child implies a left one
        if (nchild > 0) ++interior[static_cast<std::size_t>(r)];
      }
      EXPECT_EQ(roots, 1) << "p=" << p << " tree " << tree;
    }
    for (int r = 0; r < p; ++r)
      EXPECT_LE(interior[static_cast<std::size_t>(r)], 1) << "p=" << p << " rank " << r;
  }
}

TEST(Pipeline, ChunkCountsAreBoundedBySegmentsAndElements) {
  EXPECT_EQ(pipeline_chunks(0, 4, 0, 8), 0);
  EXPECT_EQ(pipeline_chunks(100, 4, 0, 1), 1);
  EXPECT_EQ(pipeline_chunks(100, 4, 0, 8), 8);
  EXPECT_EQ(pipeline_chunks(5, 4, 0, 8), 5);      // at most one chunk per element
  EXPECT_EQ(pipeline_chunks(100, 4, 40, 1), 10);  // 10 elements per segment
  EXPECT_EQ(pipeline_chunks(101, 4, 40, 1), 11);  // the last one partial
  EXPECT_EQ(pipeline_chunks(100, 8, 1, 1), 100);  // segments below one element
  const Region c = chunk_of({kOutput, 10, 7}, 3, 1);
  EXPECT_EQ(c.offset, 13u);
  EXPECT_EQ(c.count, 2u);
}

TEST(RoundTally, PerRoundMaximaOverRanks) {
  RoundTally t(2, 4);
  t.set_round(0);  // rank A: two sends of 3, one reduce-receive of 5
  t.send(1, {kInput, 0, 3});
  t.send(2, {kInput, 0, 3});
  t.recv_reduce(1, {kOutput, 0, 5});
  t.end_rank();
  t.set_round(0);  // rank B: one receive of 7
  t.recv(0, {kOutput, 0, 7});
  t.set_round(1);  // and a local reduce of 2 in a round without messages
  t.reduce({kInput, 0, 2}, {kOutput, 0, 2});
  t.end_rank();
  const Cost c = t.total();
  EXPECT_EQ(c.alpha, 2);            // A's two sends
  EXPECT_EQ(c.beta, 7 * 4);         // B's 7 elements beat A's 6 sent
  EXPECT_EQ(c.gamma, (5 + 2) * 4);  // round 0: A's 5; round 1: B's 2
}

}  // namespace
}  // namespace cb
