// --transport ipc in a build without MPI: listed, refused with the reason
// (mpiexec launches the IPC transport's ranks, and their Group is MPI's).
#include "transports/contract/transport_spec.hpp"

namespace cb {

void add_ipc_transport(std::vector<TransportSpec>& list) {
  list.push_back(unbuilt_transport(
      "ipc", "schedules over mapped memory of one node (host shm, CUDA-IPC), baseline nccl",
      "built without MPI (MPICH), which launches the ranks and exchanges handles"));
}

}  // namespace cb
