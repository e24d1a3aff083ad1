// The node layout the hierarchical algorithms compose over (units: ranks).
//
// CollParams::ranks_per_node = K puts ranks [j*K, (j+1)*K) on node j; the
// last node holds the remaining p - (N-1)*K ranks (fewer than K when K does
// not divide p). K = 0 or K >= p is one node. Rank r is local rank r mod K of
// node r / K, so "lane" i (local rank i of every node) is ranks i, i+K, i+2K...
// Transports that learn a layout from the runtime renumber ranks node by node
// into this order (transports/mpi).
#pragma once

#include "algorithms/params.hpp"

namespace cb::hier {

struct NodeLayout {
  int p = 1;     // ranks
  int k = 1;     // ranks per node (all nodes but possibly the last)
  int nodes = 1;
  int last = 1;  // ranks on the last node, 1..k

  int node(int r) const { return r / k; }
  int local(int r) const { return r % k; }
  int node_size(int j) const { return j == nodes - 1 ? last : k; }
  bool uniform() const { return last == k; }
};

inline NodeLayout node_layout(const CollParams& params) {
  NodeLayout l;
  l.p = params.p;
  l.k = params.ranks_per_node <= 0 || params.ranks_per_node >= params.p ? params.p
                                                                         : params.ranks_per_node;
  l.nodes = (l.p + l.k - 1) / l.k;
  l.last = l.p - (l.nodes - 1) * l.k;
  return l;
}

}  // namespace cb::hier
