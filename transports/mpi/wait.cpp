#include "transports/mpi/wait.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <stdexcept>
#include <vector>

#include "transports/mpi/poll.hpp"

namespace cb {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(fmt::format("{} failed: {}", what, std::string_view(text, len)));
}

void wait_all(std::span<MPI_Request> requests, WaitPolicy policy) {
  if (requests.empty()) return;
  const int n = static_cast<int>(requests.size());
  if (policy == WaitPolicy::spin || policy == WaitPolicy::automatic) {
    check_mpi(MPI_Waitall(n, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    return;
  }
  poll_until(
      [&] {
        int done = 0;
        check_mpi(MPI_Testall(n, requests.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
        return done != 0;
      },
      policy);
}

void wait_one(MPI_Request& request, WaitPolicy policy) {
  wait_all(std::span<MPI_Request>(&request, 1), policy);
}

void barrier(MPI_Comm comm, WaitPolicy policy) {
  if (policy == WaitPolicy::spin || policy == WaitPolicy::automatic) {
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    return;
  }
  MPI_Request req;
  check_mpi(MPI_Ibarrier(comm, &req), "MPI_Ibarrier");
  wait_one(req, policy);
}

namespace {

MPI_Comm node_comm(MPI_Comm comm) {
  MPI_Comm node;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  return node;
}

int union_of_affinity(MPI_Comm node) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return 1;
  // cpu_set_t is a plain bit array: OR-ing its bytes across ranks is the union.
  cpu_set_t all;
  check_mpi(MPI_Allreduce(&mine, &all, static_cast<int>(sizeof mine), MPI_BYTE, MPI_BOR, node),
            "MPI_Allreduce(affinity)");
  const int n = CPU_COUNT(&all);
  return n > 0 ? n : 1;
}

}  // namespace

int usable_cores_on_node(MPI_Comm comm) {
  MPI_Comm node = node_comm(comm);
  const int cores = union_of_affinity(node);
  MPI_Comm_free(&node);
  return cores;
}

int ranks_on_node(MPI_Comm comm) {
  MPI_Comm node = node_comm(comm);
  int n = 0;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

bool oversubscribed(MPI_Comm comm) {
  MPI_Comm node = node_comm(comm);
  int ranks = 0;
  MPI_Comm_size(node, &ranks);
  const int local = ranks > union_of_affinity(node) ? 1 : 0;
  MPI_Comm_free(&node);
  int any = 0;
  check_mpi(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm),
            "MPI_Allreduce(oversubscribed)");
  return any != 0;
}

}  // namespace cb
