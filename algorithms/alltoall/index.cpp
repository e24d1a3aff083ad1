// The alltoall algorithms, one line each, in the order `collbench list` shows.
// Owners uncomment a line when its file exists (and add it to meson.build).
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/alltoall/alltoall.hpp"

namespace cb {

std::span<const AlgorithmEntry> alltoall_algorithms() {
  using namespace alltoall;
  static const std::vector<AlgorithmEntry> table = {
      {Collective::alltoall, "naive", "direct: every rank sends block q to rank q, one round", naive, naive_cost, false},
      {Collective::alltoall, "ps", "parameter server: rank 0 receives every input, regroups by destination, sends each rank its blocks", ps, ps_cost, false},
      {Collective::alltoall, "ring", "store-and-forward ring: p-1 neighbour steps, (p-1)/2 of the data each", ring, ring_cost, true},
      {Collective::alltoall, "butterfly", "hypercube exchange: half the blocks to partner r^2^k each step, lg p steps", butterfly, butterfly_cost, false},
      {Collective::alltoall, "bruck", "Bruck: ceil(log2 p) rounds moving the blocks whose index has bit k set, packed, any p", bruck, bruck_cost, false},
      {Collective::alltoall, "pairwise", "pairwise exchange: p-1 rounds, partner rank XOR i (powers of two) or rank+i / rank-i", pairwise, pairwise_cost, false},
  };
  return table;
}

}  // namespace cb
