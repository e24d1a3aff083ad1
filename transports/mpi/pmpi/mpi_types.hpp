// What an intercepted call's MPI datatype and op are in collbench's terms.
//
// Reductions need a predefined MPI type with a collbench DataType of the same
// representation and a built-in op collbench implements: MPI_SUM, MPI_PROD,
// MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR.
// Every predefined C integer type maps by size and signedness onto int8 ...
// uint64 (MPI_CHAR, MPI_SHORT, MPI_LONG ..., the fixed-width ones, and MPICH's
// extras MPI_AINT, MPI_OFFSET, MPI_COUNT), MPI_C_BOOL onto uint8 for the
// logical ops and MPI_BYTE onto uint8 for the bitwise ops, the pairs MPICH
// 4.0.2 defines (src/mpi/coll/op/op*.c); the results are MPICH's bit for bit
// (C arithmetic: wraparound, logical ops give 1 or 0). fp16 is MPIX_C_FLOAT16
// where mpi.h defines it; bf16 has no MPI datatype in MPICH 4.0.2, so no call
// can name it. Data-movement
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
// The collbench op of a built-in MPI op, or nullopt (MPI_MAXLOC, MPI_REPLACE,
// user-defined ops ...).
std::optional<ReduceOp> builtin_op(MPI_Op op);
// Whether MPI defines `op` on `type` (a type reduction_type() maps): e.g.
// MPI_SUM on MPI_BYTE or MPI_BAND on MPI_FLOAT is not, and such a call goes
// to the MPI library, which reports the error.
bool op_defined_on(MPI_Datatype type, ReduceOp op);
// Whether `op` was made by MPI_Op_create (as opposed to a predefined op).
bool is_user_op(MPI_Op op);
// Bytes of one element of `type` when its elements are contiguous bytes,
// else nullopt. Never calls an intercepted function.
std::optional<std::size_t> contiguous_size(MPI_Datatype type);
// A short name for notices: "MPI_INT", "MPI_BYTE", "MPI_SUM", "a user-defined op".
std::string type_name(MPI_Datatype type);
std::string op_name(MPI_Op op);

}  // namespace cb::pmpi
