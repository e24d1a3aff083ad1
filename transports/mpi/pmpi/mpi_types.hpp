// What an intercepted call's MPI datatype and op are in collbench's terms.
//
// Reductions need a predefined MPI type with a collbench DataType of the same
// representation and a built-in op collbench implements (MPI_SUM, MPI_PROD,
// MPI_MIN, MPI_MAX). fp16 is MPIX_C_FLOAT16 where mpi.h defines it; bf16 has
// no MPI datatype in MPICH 4.0.2, so no call can name it. Data-movement
// collectives (allgather, alltoall) need no arithmetic: any datatype whose
// elements lie back to back (a contiguous type map, lower bound 0, extent =
// size) travels as bytes.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>

#include "algorithms/types.hpp"

namespace cb::pmpi {

// The collbench type of a predefined MPI type, or nullopt.
std::optional<DataType> reduction_type(MPI_Datatype type);
// The collbench op of a built-in MPI op, or nullopt (MPI_BAND, MPI_MAXLOC,
// user-defined ops ...).
std::optional<ReduceOp> builtin_op(MPI_Op op);
// Whether `op` was made by MPI_Op_create (as opposed to a predefined op).
bool is_user_op(MPI_Op op);
// Bytes of one element of `type` when its elements are contiguous bytes,
// else nullopt. Never calls an intercepted function.
std::optional<std::size_t> contiguous_size(MPI_Datatype type);
// A short name for notices: "MPI_INT", "MPI_BYTE", "MPI_SUM", "a user-defined op".
std::string type_name(MPI_Datatype type);
std::string op_name(MPI_Op op);

}  // namespace cb::pmpi
