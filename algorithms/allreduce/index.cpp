// The allreduce algorithms, one line each, in the order `collbench list` shows.
// Owners uncomment a line when its file exists (and add it to meson.build).
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/allreduce/allreduce.hpp"

namespace cb {

std::span<const AlgorithmEntry> allreduce_algorithms() {
  using namespace allreduce;
  static const std::vector<AlgorithmEntry> table = {
      // {Collective::allreduce, "naive", "SUMMARY", naive, naive_cost, false},
      // {Collective::allreduce, "ps", "SUMMARY", ps, ps_cost, false},
      // {Collective::allreduce, "ring", "SUMMARY", ring, ring_cost, false},
      // {Collective::allreduce, "tree", "SUMMARY", tree, tree_cost, false},
      // {Collective::allreduce, "dbtree", "SUMMARY", dbtree, dbtree_cost, false},
      // {Collective::allreduce, "butterfly", "SUMMARY", butterfly, butterfly_cost, false},
      // {Collective::allreduce, "rhd", "SUMMARY", rhd, rhd_cost, false},
  };
  return table;
}

}  // namespace cb
