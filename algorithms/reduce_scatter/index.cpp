// The reduce_scatter algorithms, one line each, in the order `collbench list` shows.
// Owners uncomment a line when its file exists (and add it to meson.build).
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/reduce_scatter/reduce_scatter.hpp"

namespace cb {

std::span<const AlgorithmEntry> reduce_scatter_algorithms() {
  using namespace reduce_scatter;
  static const std::vector<AlgorithmEntry> table = {
      // {Collective::reduce_scatter, "naive", "SUMMARY", naive, naive_cost, false},
      // {Collective::reduce_scatter, "ps", "SUMMARY", ps, ps_cost, false},
      {Collective::reduce_scatter, "ring", "running partial sums passed around the ring, p-1 steps", ring, ring_cost, true},
      // {Collective::reduce_scatter, "tree", "SUMMARY", tree, tree_cost, false},
      {Collective::reduce_scatter, "butterfly", "order-preserving recursive doubling: all but the own subtree's blocks each step, lg p steps", butterfly, butterfly_cost, false},
      {Collective::reduce_scatter, "rhd", "recursive halving: exchange and reduce half the range per step, lg p steps", rhd, rhd_cost, false},
      // {Collective::reduce_scatter, "pairwise", "SUMMARY", pairwise, pairwise_cost, false},
  };
  return table;
}

}  // namespace cb
