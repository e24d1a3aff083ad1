#include "transports/ipc/common/agree.hpp"

#include <fmt/format.h>

#include <climits>
#include <stdexcept>

#include "transports/mpi/wait.hpp"

namespace cb::ipc {

void agree(MPI_Comm comm, WaitPolicy wait, std::exception_ptr local, const char* stage) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int mine = local ? rank : INT_MAX;
  int first_failed = INT_MAX;
  // Nonblocking + polling wait: MPICH's blocking collectives spin, which
  // costs milliseconds per call when ranks outnumber cores.
  MPI_Request req;
  check_mpi(MPI_Iallreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, comm, &req), "MPI_Iallreduce");
  wait_collective(req, wait, comm);
  if (local) std::rethrow_exception(local);
  if (first_failed != INT_MAX)
    throw std::runtime_error(
        fmt::format("IPC {} failed on rank {} (its own message says why)", stage, first_failed));
}

}  // namespace cb::ipc
