// The MPI communicator behind a Group, for a per-process transport that calls
// MPI itself (mpi). The harness defines it (harness/runtime/group_mpi.cpp)
// for the groups it builds over MPI; only code compiled with MPI includes this.
#pragma once

#include <mpi.h>

namespace cb {

class Group;

// The group's communicator; throws std::logic_error when `g` is not a group
// over MPI (a per-process transport in a single-process group).
MPI_Comm mpi_comm_of(Group& g);

}  // namespace cb
