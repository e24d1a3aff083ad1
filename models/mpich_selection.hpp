// Export of the predicted best algorithms as an MPICH 4.0.2 collective
// selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE; see
// /work/shared/reference/mpich-and-build.md), so a user can make MPICH pick
// what collbench's model predicts.
//
// MPICH takes the first matching key at every level and aborts when nothing
// matches, so the file must be total. It is built from MPICH's own default
// tree (passed in; the CLI reads the one compiled into libmpich): for the four
// collectives collbench measures, the intra-communicator subtree is replaced
// by the model's choice per (comm_size, message size) bucket, every level
// ending in an "=any" catch-all; every other collective and case keeps
// MPICH's default.
//
// Mapping (collbench -> MPICH 4.0.2, blocking, intra-communicator): the
// registry's mpich column (algorithms/registry_table.inc). Only algorithms
// MPICH has under the same idea are candidates; the model picks the fastest
// candidate. The guards come from the candidates' mpich_restrictions:
// commutative or builtin-op -> is_commutative (no: MPICH's default),
// noinplace -> is_sendbuf_inplace (yes: MPICH's default), power-of-two ->
// comm_size=pow2, size-ge-pof2 -> count<pow2 runs the first unrestricted
// candidate. Today:
//   allreduce       butterfly -> MPIR_Allreduce_intra_recursive_doubling
//                   rhd       -> MPIR_Allreduce_intra_reduce_scatter_allgather
//                                (MPICH needs count >= pow2(p): smaller counts
//                                use recursive_doubling, as MPICH's default does)
//                   (ring, tree, dbtree, naive, ps: no blocking equivalent in 4.0.2)
//                   non-commutative ops keep MPICH's default subtree.
//   reduce_scatter  (MPI_Reduce_scatter_block, what collbench measures)
//                   pairwise  -> MPIR_Reduce_scatter_block_intra_pairwise
//                   rhd       -> MPIR_Reduce_scatter_block_intra_recursive_halving
//                   butterfly -> MPIR_Reduce_scatter_block_intra_recursive_doubling
//                   non-commutative ops keep MPICH's default subtree.
//   allgather       ring      -> MPIR_Allgather_intra_ring
//                   bruck     -> MPIR_Allgather_intra_brucks
//                   rhd, butterfly (recursive doubling) -> MPIR_Allgather_intra_recursive_doubling,
//                                guarded by comm_size=pow2 (MPICH asserts it), else
//                                the best of ring / bruck
//   alltoall        pairwise  -> MPIR_Alltoall_intra_pairwise
//                   bruck     -> MPIR_Alltoall_intra_brucks
//                   naive     -> MPIR_Alltoall_intra_scattered (all sends posted at once)
//                   in place keeps MPICH's default subtree.
// Message size keys follow MPICH's: avg_msg_size = bytes per rank's message
// (allreduce: count * elem; alltoall: per-peer count * elem); total_msg_size
// = the whole vector (allgather, reduce_scatter_block: count * elem * p) --
// i.e. collbench's S except for alltoall (S / p).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "models/model_params.hpp"

namespace cb::models {

struct SelectionGrid {
  std::vector<int> comm_sizes = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  std::uint64_t min_bytes = 8;              // sizes 8 B .. 1 GiB, doubling
  std::uint64_t max_bytes = std::uint64_t{1} << 30;
  // false: comm_size<=N buckets, each choice serving every size up to N and
  // the largest one beyond (a model extrapolates). true: only the comm sizes
  // listed get a choice (measured ones); every other comm size, between them
  // and beyond, keeps MPICH's default subtree.
  bool exact_comm_sizes = false;
  // false: MPICH's file (leaves name MPIR_ algorithms; "" keeps MPICH's
  // default subtree). true: collbench's own file for libcollbench-pmpi.so
  // (COLLBENCH_SELECTION): leaves name collbench algorithms, any of them
  // (naive, ring ... that MPICH lacks), "" and every case not chosen is
  // "algorithm=mpi" (the library's own collective), and only the four
  // collectives are written.
  bool collbench_leaves = false;
};

// The choice at one cell of the grid: the collbench algorithm (for MPICH's
// file one with an MPICH equivalent, mpich_algorithm() non-empty; pow2-only
// ones only when allow_pow2_only) to run for `coll` at p ranks and size S = bytes (collbench's
// S, as in the results CSV), or "" to keep MPICH's default there.
using SelectionChooser = std::function<std::string(Collective coll, int p, std::uint64_t bytes,
                                                   bool allow_pow2_only)>;

// The selection tree with `choose` deciding every cell. Throws UsageError
// when `default_tree` lacks a collective it must keep (not read with
// grid.collbench_leaves).
nlohmann::ordered_json mpich_selection(const nlohmann::ordered_json& default_tree,
                                       const SelectionChooser& choose,
                                       const SelectionGrid& grid = {});

// The model's choice: the candidate with the smallest predicted time (fp32).
nlohmann::ordered_json mpich_selection(const nlohmann::ordered_json& default_tree,
                                       const ModelParams& m, const SelectionGrid& grid = {});

// Why `tree` cannot serve as MPICH's default selection tree ("" when it can):
// it must be an object with "collective=NAME" / "comm_type=intra" for every
// collective collbench writes. mpich_selection() refuses the same trees.
std::string mpich_default_tree_problem(const nlohmann::ordered_json& tree);

// MPICH's default selection tree, found in the bytes of libmpich (the JSON
// string holding every "collective=..." with MPIR_ algorithms, which MPICH
// compiles in), or nullopt when there is none.
std::optional<nlohmann::ordered_json> find_mpich_default_tree(std::string_view library_bytes);

// The MPICH algorithm name collbench's `algorithm` maps to for `coll`
// ("" when MPICH 4.0.2 has none), e.g. ("allgather", "bruck") ->
// "MPIR_Allgather_intra_brucks".
std::string mpich_algorithm(Collective coll, std::string_view algorithm);

}  // namespace cb::models
