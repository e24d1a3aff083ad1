#include "harness/calibrate/rank_plan.hpp"

namespace cb::calibrate {

RankPlan plan_ranks(int world_size, const NodeLayoutInfo& layout) {
  RankPlan plan;
  // An irregular layout (ranks_per_node -1) or one node stays on one level:
  // there is no K that names the second node's leader.
  if (layout.nodes >= 2 && layout.ranks_per_node >= 2) {
    plan.ranks_per_node = layout.ranks_per_node;
    plan.network_pair = {0, plan.ranks_per_node};
    for (int r = 0; r < world_size; r += plan.ranks_per_node) {
      plan.fan_in_ranks.push_back(r);
      if (r + 1 < world_size) plan.intra_pairs.insert(plan.intra_pairs.end(), {r, r + 1});
    }
  } else {
    for (int r = 0; r < world_size; ++r) plan.fan_in_ranks.push_back(r);
  }
  return plan;
}

}  // namespace cb::calibrate
