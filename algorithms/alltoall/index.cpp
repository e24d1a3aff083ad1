// The alltoall algorithms, one line each, in the order `collbench list` shows.
// Owners uncomment a line when its file exists (and add it to meson.build).
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/alltoall/alltoall.hpp"

namespace cb {

std::span<const AlgorithmEntry> alltoall_algorithms() {
  using namespace alltoall;
  static const std::vector<AlgorithmEntry> table = {
      // {Collective::alltoall, "naive", "SUMMARY", naive, naive_cost, false},
      // {Collective::alltoall, "ps", "SUMMARY", ps, ps_cost, false},
      // {Collective::alltoall, "ring", "SUMMARY", ring, ring_cost, false},
      // {Collective::alltoall, "butterfly", "SUMMARY", butterfly, butterfly_cost, false},
      // {Collective::alltoall, "bruck", "SUMMARY", bruck, bruck_cost, false},
      // {Collective::alltoall, "pairwise", "SUMMARY", pairwise, pairwise_cost, false},
  };
  return table;
}

}  // namespace cb
