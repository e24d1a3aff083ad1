// The collectives table: everything the layers ask of a collective (counts,
// in-place layout, the size -> count rule, the busbw factor and lower bound,
// the expected output, the shape of its library call, names in CLI, CSV and
// MPICH), one entry per collective. Adding a collective = one enum value in
// types.hpp, one entry in collective.cpp, then its algorithms, plus one line
// naming its library function per baseline (transports/mpi/library_calls.hpp,
// transports/ipc/nccl/nccl_operation.cpp) and in the pmpi interposer's entry
// points. A collective whose result is not "every rank's block, reduced or
// concatenated" (broadcast, reduce: one root) also needs a field for its
// root here, read by source_offset() and verify's expected output.
#pragma once

#include <cstddef>
#include <string_view>

#include "algorithms/types.hpp"

namespace cb {

struct CollectiveSpec {
  Collective coll;
  std::string_view name;        // CLI and CSV value: "allreduce"
  std::string_view mpich_name;  // MPI_<name> / MPIR_<name>_intra_*: "Reduce_scatter_block"
  // Applies a ReduceOp. Also the shape of the library call (MPI, NCCL):
  // reducing calls take (send, recv, count, type, op), the others (send,
  // count, type, recv, count, type); count is per rank, the same both sides.
  // And the lower bound's gamma term: at least (p-1)/p S is reduced.
  bool reducing;
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
  // nccl-tests' bus bandwidth: busbw = algbw * busbw_steps * (p-1)/p. The
  // same factor is the bandwidth lower bound's: some rank moves at least
  // busbw_steps * (p-1)/p * S bytes (nccl-tests derives busbw from it).
  double busbw_steps;
  // In place, MPI (and the pmpi interposer) leave the result at the
  // buffer's start, not at block `rank`: MPI_Reduce_scatter_block's rule.
  bool library_in_place_output_at_start;

  // Rank `rank`'s output is, from every rank j, the count elements of j's
  // input at this offset (elements), reduced over j (reducing) or
  // concatenated in rank order.
  std::size_t source_offset(int rank, std::size_t count) const {
    return input_per_rank ? static_cast<std::size_t>(rank) * count : 0;
  }
  // Every rank gets the same output (its source block does not depend on rank).
  bool same_output_on_every_rank() const { return !input_per_rank; }
};

const CollectiveSpec& collective_spec(Collective coll);

}  // namespace cb
