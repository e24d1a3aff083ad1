// --transport ipc in a build without MPI: listed, refused with the reason
// (the IPC transport needs MPI to launch ranks and exchange segment names).
#include "harness/runtime/backend.hpp"

namespace cb {

void add_ipc_transport(std::vector<TransportSpec>& list) {
  TransportSpec t;
  t.name = "ipc";
  t.summary = "schedules over mapped memory of one node (host shm, CUDA-IPC), baseline nccl";
  t.available = false;
  t.unavailable_reason = "built without MPI (MPICH), which launches the ranks and exchanges handles";
  list.push_back(std::move(t));
}

}  // namespace cb
