// collbench datatypes and ops as MPI handles, for the library baselines.
//
// MPICH 4.0.2 here has no half-precision types (MPIX_C_FLOAT16 is absent and
// there is no bfloat16 at all), so fp16 and bf16 travel as a committed 2-byte
// contiguous type of MPI_UINT16_T, one per format, and reduce with a
// user-defined commutative MPI_Op per (format, op) whose function calls
// cb::reduce_inplace: the same arithmetic (widen to float, round to nearest
// even) as the schedule transports, so results stay comparable bit for bit.
// Built-in types use MPI's own ops. Handles are created on first use and
// stay valid until MPI_Finalize, which frees them.
#pragma once

#include <mpi.h>

#include <string>

#include "algorithms/types.hpp"

namespace cb {

MPI_Datatype mpi_datatype(DataType dtype);
// The MPI op that reduces `dtype` with `op`; ReduceOp::avg maps to the sum
// (the caller divides by p once at the end).
MPI_Op mpi_op(DataType dtype, ReduceOp op);

// A known defect of this MPI library's own reduction of `dtype` with `op`,
// as one phrase naming the upstream bug, or "" when there is none. Found by
// trying it (MPI_Reduce_local on 0 and the type's maximum), not by version:
// MPICH 4.0.2 compares unsigned integers as signed in MPI_MIN/MPI_MAX
// (pmodels/mpich#6083, fixed by pmodels/mpich#6085), so the `mpi` baseline's
// uint min/max results are wrong there while the schedules' are right.
std::string mpi_known_defect(DataType dtype, ReduceOp op);

}  // namespace cb
