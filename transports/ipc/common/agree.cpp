#include "transports/ipc/common/agree.hpp"

#include <fmt/format.h>

#include <climits>
#include <stdexcept>

namespace cb::ipc {

void agree(MPI_Comm comm, std::exception_ptr local, const char* stage) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int mine = local ? rank : INT_MAX;
  int first_failed = INT_MAX;
  MPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, comm);
  if (local) std::rethrow_exception(local);
  if (first_failed != INT_MAX)
    throw std::runtime_error(
        fmt::format("IPC {} failed on rank {} (its own message says why)", stage, first_failed));
}

}  // namespace cb::ipc
