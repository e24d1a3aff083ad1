// --transport mpi in a build without MPICH: listed, refused with the reason.
#include "harness/runtime/backend.hpp"

namespace cb {

void add_mpi_transport(std::vector<TransportSpec>& list) {
  TransportSpec t;
  t.name = "mpi";
  t.summary = "schedules over MPI point-to-point (MPICH); baseline 'mpi' = MPICH's collectives";
  t.available = false;
  t.unavailable_reason =
      "MPICH was not found when collbench was configured (install libmpich-dev, reconfigure)";
  list.push_back(std::move(t));
}

}  // namespace cb
