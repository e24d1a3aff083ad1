// The launch's node layout as the hierarchical algorithms need it
// (CollParams::ranks_per_node): which ranks share a node, learned from the
// runtime (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), world_mpi.cpp) or
// forced with --ranks-per-node (an emulation: on one machine every rank still
// talks through shared memory).
#pragma once

#include <span>
#include <string>

namespace cb {

struct NodeLayoutInfo {
  int nodes = 1;
  // K when the nodes are consecutive blocks of K ranks (the last node may
  // hold fewer), 0 for one node, -1 for any other layout (irregular).
  int ranks_per_node = 0;
  std::string sizes;  // ranks per node in order of their first rank: "4,4,2"
  bool forced = false;  // from --ranks-per-node, not from the runtime

  // "2 nodes x 4 ranks", "3 nodes of 4,4,2 ranks", "1 node of 8 ranks",
  // with "(forced by --ranks-per-node: emulated)" when forced.
  std::string describe() const;
};

// node_of_rank[r] is any id, equal exactly for ranks on the same node.
NodeLayoutInfo layout_from_nodes(std::span<const int> node_of_rank);

// The layout --ranks-per-node K imposes on p ranks (K >= 1).
NodeLayoutInfo forced_layout(int p, int k);

// The launch's layout, from the runtime (one node without MPI). Collective
// over the world.
NodeLayoutInfo world_node_layout();

}  // namespace cb
