// The processes of this launch. world() starts MPI on first use (in a build
// with MPI), so commands that need no ranks (list, fit) never initialise it.
// Without mpiexec (or without MPI in the build) the world is one process.
#pragma once

#include <string>
#include <vector>

#include "harness/runtime/group.hpp"
#include "harness/runtime/metadata.hpp"

namespace cb {

// The launch's group (MPI_COMM_WORLD or the single process), waiting with
// the policy given at the first call (automatic resolves against the whole
// world's oversubscription).
Group& world(WaitPolicy wait = WaitPolicy::automatic);
bool world_started();

// Whether this process prints user-facing messages: world rank 0, or before
// MPI is up, the launcher's rank 0 (PMI_RANK unset or "0").
bool is_reporting_rank();

// Every rank's RankPlace, in rank order, on world rank 0 (empty elsewhere).
// Collective over the world.
std::vector<RankPlace> gather_rank_places();

// The MPI library's version string, or "none" when built without MPI.
std::string mpi_library_version();

// Writes `status` to the file named by $COLLBENCH_EXIT_FILE, if set, before
// MPI ends: a launcher can then end a job whose MPI_Finalize hangs (UCX over
// TCP with 4+ ranks, UCX #8738; scripts/testbed.sh) with the right status.
void announce_exit_status(int status);

// Ends MPI if it was started; call once at exit.
void finalize_world();
// Ends every rank of the launch (MPI_Abort when MPI is up) with `status`.
[[noreturn]] void abort_world(int status);

}  // namespace cb
