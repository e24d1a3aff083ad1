// Reading an MPICH 4.0.2 collective selection file (the format collbench's
// `fit --mpich-json` writes, models/mpich_selection.hpp) to pick an algorithm
// per call, as MPICH would with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE.
// The same tree with collbench's algorithm names at the leaves (`recommend`'s
// collbench-selection.json) reaches the algorithms MPICH lacks (naive ...).
//
// The tree is walked from "collective=<name>" (allreduce,
// reduce_scatter_block, allgather, alltoall); at every level the first key
// whose condition holds is taken, as MPICH does, until an
// "algorithm=MPIR_..." leaf. Conditions understood:
//   comm_type=intra|inter, comm_size<=N|<N|=N|=pow2|=any,
//   avg_msg_size<=N|<N|=any, total_msg_size<=N|<N|=any, count<pow2|<=N|<N|=any,
//   is_commutative, is_op_built_in (yes: only built-in ops get here),
//   is_sendbuf_inplace=yes|no, is_block_regular=yes, and any key "=any".
// Other keys (comm_hierarchy, is_node_consecutive ...) never match, so the
// walk goes on to the next sibling, which in MPICH's trees is a catch-all.
// Sizes follow MPICH: avg_msg_size is one rank's message (allreduce: the
// vector; allgather, reduce_scatter_block: one block; alltoall: one peer's
// block), total_msg_size the whole vector (block * p).
#pragma once

// The declaration suffices here; selection.cpp includes the library.
#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>

#include "algorithms/types.hpp"

namespace cb::pmpi {

struct CallShape {
  Collective coll = Collective::allreduce;
  int p = 1;
  std::size_t count = 0;  // the call's count (collbench's Schedule::count)
  std::size_t elem = 1;   // bytes per element
  bool in_place = false;
};

// Throws UsageError naming the file when it cannot be read or is not a JSON
// object with at least one of the four collectives.
nlohmann::ordered_json read_selection(const std::string& path);

// The algorithm name of the leaf the tree picks ("MPIR_Allreduce_intra_..."
// in MPICH's file; "naive", "mpi" ... in collbench's), or "" when no branch
// matches.
std::string select_mpich_algorithm(const nlohmann::ordered_json& tree, const CallShape& call);

// The collbench algorithm for a leaf: a collbench name of `coll`'s (or
// "mpi", the library's own collective) as it is, else the algorithm running
// the same idea as the MPICH one (the inverse of models::mpich_algorithm),
// or "" when collbench has none.
std::string collbench_algorithm(Collective coll, const std::string& mpich_name);

}  // namespace cb::pmpi
