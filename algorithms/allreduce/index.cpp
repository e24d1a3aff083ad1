// The allreduce algorithms, one line each, in the order `collbench list` shows.
// Owners uncomment a line when its file exists (and add it to meson.build).
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/allreduce/allreduce.hpp"

namespace cb {

std::span<const AlgorithmEntry> allreduce_algorithms() {
  using namespace allreduce;
  static const std::vector<AlgorithmEntry> table = {
      {Collective::allreduce, "naive", "direct: every rank sends its vector to every other rank, one round", naive, naive_cost, false},
      {Collective::allreduce, "ps", "parameter server: rank 0 receives and reduces all vectors, sends the result back", ps, ps_cost, false},
      {Collective::allreduce, "ring", "ring reduce-scatter + ring all-gather, 2(p-1) steps, bandwidth-optimal", ring, ring_cost, true},
      {Collective::allreduce, "tree", "binomial reduce to rank 0 + binomial broadcast, pipelined in segments", tree, tree_cost, true},
      {Collective::allreduce, "dbtree", "double binary tree (NCCL Tree): two complementary trees, half each, pipelined", dbtree, dbtree_cost, true},
      {Collective::allreduce, "butterfly", "recursive doubling, whole vector exchanged and reduced each step, lg p steps", butterfly, butterfly_cost, false},
      {Collective::allreduce, "rhd", "Rabenseifner: recursive-halving reduce-scatter + recursive-doubling all-gather, 2 lg p steps", rhd, rhd_cost, false},
  };
  return table;
}

}  // namespace cb
