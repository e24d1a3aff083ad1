// --transport mpi in a build without MPICH: listed, refused with the reason.
#include "transports/contract/transport_spec.hpp"

namespace cb {

void add_mpi_transport(std::vector<TransportSpec>& list) {
  list.push_back(unbuilt_transport(
      "mpi", "schedules over MPI point-to-point (MPICH); baseline 'mpi' = MPICH's collectives",
      "MPICH was not found when collbench was configured (install libmpich-dev, reconfigure)"));
}

}  // namespace cb
