// Which ranks of the world take part in which phase of `collbench
// calibrate`: on one level ranks 0 and 1 measure the network and every rank
// runs the fan-in; on two levels (2 or more nodes of K >= 2 consecutive
// ranks, harness/runtime/node_layout.hpp) the network is measured between
// two nodes' leaders (ranks 0 and K, not ranks 0 and 1, which share a
// node), the fan-in runs on the node leaders, and the intra-node ping-pong
// runs on ranks 0 and 1 alone, then on ranks jK and jK+1 of every node j at
// once (measure.hpp, measure_intra, says why).
#pragma once

#include <vector>

#include "harness/runtime/node_layout.hpp"

namespace cb::calibrate {

struct RankPlan {
  int ranks_per_node = 0;               // K on two levels, 0 on one level
  std::vector<int> network_pair{0, 1};  // world ranks of the network's pair
  std::vector<int> fan_in_ranks;        // world ranks of the fan-in, in order
  // Two levels: world ranks jK, jK+1 of every node j that holds 2 or more
  // (a short last node of one rank has no pair), node by node, so that
  // pair j is ranks 2j and 2j+1 of their group; empty on one level.
  std::vector<int> intra_pairs;
  bool two_levels() const { return ranks_per_node > 0; }
};

// The plan for a world of `world_size` ranks laid out as `layout`.
RankPlan plan_ranks(int world_size, const NodeLayoutInfo& layout);

}  // namespace cb::calibrate
