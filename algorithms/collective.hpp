// The collectives table: everything the layers ask of a collective (counts,
// in-place layout, the size -> count rule, the busbw factor, names in CLI,
// CSV and MPICH), one entry per collective. Adding a collective = one enum
// value in types.hpp, one entry in collective.cpp, then its algorithms.
#pragma once

#include <cstddef>
#include <string_view>

#include "algorithms/types.hpp"

namespace cb {

struct CollectiveSpec {
  Collective coll;
  std::string_view name;        // CLI and CSV value: "allreduce"
  std::string_view mpich_name;  // MPI_<name> / MPIR_<name>_intra_*: "Reduce_scatter_block"
  bool reducing;                // applies a ReduceOp
  // Counts are in units of `count` (elements, the MPI meaning): the input
  // and output hold one block of count elements, or p blocks (one per rank).
  bool input_per_rank;
  bool output_per_rank;
  // In place (MPI_IN_PLACE): this rank's input (allgather) or output
  // (reduce_scatter) is block `rank` of the one buffer; otherwise offset 0.
  bool in_place_input_at_own_block;
  bool in_place_output_at_own_block;
  // S, the size nccl-tests and the CSV bytes column use: count * element
  // size, times p when size_per_rank.
  bool size_per_rank;
  // nccl-tests' bus bandwidth: busbw = algbw * busbw_steps * (p-1)/p.
  double busbw_steps;
};

const CollectiveSpec& collective_spec(Collective coll);

}  // namespace cb
