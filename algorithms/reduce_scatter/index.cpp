// The reduce_scatter algorithms, one line each, in the order `collbench list` shows.
// Owners uncomment a line when its file exists (and add it to meson.build).
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/reduce_scatter/reduce_scatter.hpp"

namespace cb {

std::span<const AlgorithmEntry> reduce_scatter_algorithms() {
  using namespace reduce_scatter;
  static const std::vector<AlgorithmEntry> table = {
      {Collective::reduce_scatter, "naive", "direct: every rank sends block q of its input to rank q, one round", naive, naive_cost, false},
      {Collective::reduce_scatter, "ps", "parameter server: rank 0 reduces every whole vector, sends block q to rank q", ps, ps_cost, false},
      {Collective::reduce_scatter, "ring", "running partial sums passed around the ring, p-1 steps", ring, ring_cost, true},
      {Collective::reduce_scatter, "tree", "binomial reduce of the whole vector to rank 0 + binomial scatter, reduce pipelined in segments", tree, tree_cost, true},
      {Collective::reduce_scatter, "butterfly", "order-preserving recursive doubling: all but the own subtree's blocks each step, lg p steps", butterfly, butterfly_cost, false},
      {Collective::reduce_scatter, "rhd", "recursive halving: exchange and reduce half the range per step, lg p steps", rhd, rhd_cost, false},
      {Collective::reduce_scatter, "pairwise", "pairwise exchange: round i sends to rank+i, receives from rank-i, p-1 rounds", pairwise, pairwise_cost, false},
  };
  return table;
}

}  // namespace cb
