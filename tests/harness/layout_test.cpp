// The node layout learned from the runtime (harness/runtime/node_layout.hpp):
// consecutive blocks of K ranks (the last may be short) give K, one node
// gives 0, anything else (interleaved, unequal blocks) is irregular (-1).
#include <gtest/gtest.h>

#include <vector>

#include "harness/runtime/node_layout.hpp"

namespace cb {
namespace {

NodeLayoutInfo of(std::vector<int> nodes) { return layout_from_nodes(nodes); }

TEST(NodeLayout, ConsecutiveBlocksGiveRanksPerNode) {
  EXPECT_EQ(of({7, 7, 7, 7}).ranks_per_node, 0);
  EXPECT_EQ(of({7, 7, 7, 7}).describe(), "1 node of 4 ranks");
  const NodeLayoutInfo two = of({0, 0, 4, 4});
  EXPECT_EQ(two.nodes, 2);
  EXPECT_EQ(two.ranks_per_node, 2);
  EXPECT_EQ(two.describe(), "2 nodes x 2 ranks");
  const NodeLayoutInfo short_last = of({0, 0, 0, 3, 3, 3, 6});
  EXPECT_EQ(short_last.ranks_per_node, 3);
  EXPECT_EQ(short_last.sizes, "3,3,1");
  EXPECT_EQ(short_last.describe(), "3 nodes of 3,3,1 ranks");
}

TEST(NodeLayout, OtherPlacementsAreIrregular) {
  EXPECT_EQ(of({0, 1, 0, 1}).ranks_per_node, -1);  // round-robin
  EXPECT_EQ(of({0, 0, 0, 3, 4, 4}).ranks_per_node, -1);  // 3, 1, 2
  EXPECT_EQ(of({0, 3, 3, 3}).ranks_per_node, -1);  // the first node smaller
  EXPECT_NE(of({0, 1, 0, 1}).describe().find("not consecutive blocks"), std::string::npos);
}

TEST(NodeLayout, ForcedLayoutSaysItIsEmulated) {
  const NodeLayoutInfo f = forced_layout(8, 4);
  EXPECT_EQ(f.ranks_per_node, 4);
  EXPECT_EQ(f.describe(), "2 nodes x 4 ranks (forced by --ranks-per-node: emulated)");
}

}  // namespace
}  // namespace cb
