// The collectives table: everything the layers ask of a collective (counts,
// in-place layout, the size -> count rule, the busbw factor and lower bound,
// the expected output, the shape of its library call, names in CLI, CSV and
// MPICH, its MPI and NCCL functions), one row per collective in
// collective_table.inc. Adding a collective = one row there and its value
// in types.hpp's enum, then its algorithms, plus the pmpi interposer's
// MPI_<Name> entry point (a C function of MPI's signature;
// transports/mpi/pmpi/interpose.cpp); docs/extending.md lists the files. A
// collective whose result is not "every rank's block, reduced or
// concatenated" (broadcast, reduce: one root) also needs a field for its
// root here, read by source_offset() and verify's expected output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "algorithms/types.hpp"

namespace cb {

// Flags of collective_table.inc's `layout` column; each sets the
// CollectiveSpec member of the same name (below).
inline constexpr unsigned kReducing = 1u << 0;
inline constexpr unsigned kInputPerRank = 1u << 1;
inline constexpr unsigned kOutputPerRank = 1u << 2;
inline constexpr unsigned kInPlaceInputAtOwnBlock = 1u << 3;
inline constexpr unsigned kInPlaceOutputAtOwnBlock = 1u << 4;
inline constexpr unsigned kSizePerRank = 1u << 5;
inline constexpr unsigned kLibraryInPlaceOutputAtStart = 1u << 6;
// nccl.h defines no in-place form: the nccl baseline sends from a copy.
inline constexpr unsigned kNcclNoInPlace = 1u << 7;

// The message size an MPICH selection tree compares for a collective:
// avg_msg_size = one rank's message (count * elem; all-to-all: per peer),
// total_msg_size = the whole vector (count * elem * p).
enum class MpichSizeKey : std::uint8_t { avg_msg_size, total_msg_size };
std::string_view to_string(MpichSizeKey k);

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
  MpichSizeKey mpich_size_key;

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

// Every collective's name in kAllCollectives order, joined by `separator`:
// "allreduce, reduce_scatter, allgather, alltoall" (help texts).
std::string collective_names(std::string_view separator = ", ");

// The collective's key in an MPICH selection tree ("collective=<key>"):
// mpich_name in lower case, "reduce_scatter_block".
std::string mpich_selection_key(Collective coll);

}  // namespace cb
