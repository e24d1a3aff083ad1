// The allgather algorithms, one line each, in the order `collbench list` shows.
// Owners uncomment a line when its file exists (and add it to meson.build).
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/allgather/allgather.hpp"

namespace cb {

std::span<const AlgorithmEntry> allgather_algorithms() {
  using namespace allgather;
  static const std::vector<AlgorithmEntry> table = {
      {Collective::allgather, "naive", "direct: every rank sends its block to every other rank, one round", naive, naive_cost, false},
      {Collective::allgather, "ps", "parameter server: rank 0 gathers every block, sends the whole vector back", ps, ps_cost, false},
      {Collective::allgather, "ring", "each block forwarded once around the ring, p-1 steps", ring, ring_cost, true},
      {Collective::allgather, "tree", "binomial gather to rank 0 + binomial broadcast, broadcast pipelined in segments", tree, tree_cost, true},
      {Collective::allgather, "butterfly", "recursive doubling in butterfly order, partner distance p/2 first: lg p steps", butterfly, butterfly_cost, false},
      {Collective::allgather, "rhd", "recursive doubling, partner distance 1, 2, 4...: lg p steps (MPICH order)", rhd, rhd_cost, false},
      {Collective::allgather, "bruck", "Bruck: ceil(log2 p) rounds of doubling ranges in a rotated buffer, any p", bruck, bruck_cost, false},
  };
  return table;
}

}  // namespace cb
