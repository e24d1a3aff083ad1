#include "transports/mpi/wait.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "transports/common/poll.hpp"

namespace cb {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  // Which rank of which host: with many ranks the message alone says nothing.
  int rank = -1;
  char host[MPI_MAX_PROCESSOR_NAME] = "?";
  int host_len = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Get_processor_name(host, &host_len);
  throw std::runtime_error(fmt::format("rank {} on {}: {} failed: {}", rank,
                                       std::string_view(host, host_len), what,
                                       std::string_view(text, len)));
}

OwnedComm::~OwnedComm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void wait_all(std::span<MPI_Request> requests, WaitPolicy policy,
              const std::function<int(std::size_t)>& peer_of) {
  if (requests.empty()) return;
  const int n = static_cast<int>(requests.size());
  // A blocking MPI_Waitall cannot be bounded: with a watchdog, spin polls too.
  if ((policy == WaitPolicy::spin || policy == WaitPolicy::automatic) && wait_timeout() <= 0) {
    check_mpi(MPI_Waitall(n, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    return;
  }
  const auto peer = [&] {
    if (!peer_of) return std::string("a peer");
    // The first request still open names the rank this one waits on.
    for (int i = 0; i < n; ++i) {
      int done = 0;
      if (requests[i] != MPI_REQUEST_NULL &&
          MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        return fmt::format("rank {}", peer_of(static_cast<std::size_t>(i)));
    }
    return std::string("a peer");
  };
  poll_until(
      [&] {
        int done = 0;
        check_mpi(MPI_Testall(n, requests.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
        return done != 0;
      },
      policy == WaitPolicy::automatic ? WaitPolicy::spin : policy, peer);
}

std::string collective_peers(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size == 2) return fmt::format("rank {} (a collective of ranks 0-1)", 1 - rank);
  return fmt::format("one of ranks 0-{} other than {} (a collective; MPI does not say which)",
                     size - 1, rank);
}

void wait_collective(MPI_Request& request, WaitPolicy policy, MPI_Comm comm) {
  if ((policy == WaitPolicy::spin || policy == WaitPolicy::automatic) && wait_timeout() <= 0) {
    check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    return;
  }
  poll_until(
      [&] {
        int done = 0;
        check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        return done != 0;
      },
      policy == WaitPolicy::automatic ? WaitPolicy::spin : policy,
      [&] { return collective_peers(comm); });
}

void barrier(MPI_Comm comm, WaitPolicy policy) {
  if ((policy == WaitPolicy::spin || policy == WaitPolicy::automatic) && wait_timeout() <= 0) {
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    return;
  }
  MPI_Request req;
  check_mpi(MPI_Ibarrier(comm, &req), "MPI_Ibarrier");
  wait_collective(req, policy, comm);
}

namespace {

// The kernel's boot id names the machine: processes in different network
// namespaces (the testbed, where MPIR_CVAR_NOLOCAL makes MPI treat them as
// remote) or containers still share its cores and memory. Falls back to the
// host name where /proc is unavailable.
std::array<char, 64> machine_id() {
  std::array<char, 64> id{};
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string text;
  if (!(f >> text)) {
    char host[64] = {};
    gethostname(host, sizeof host - 1);
    text = host;
  }
  std::copy_n(text.begin(), std::min(text.size(), id.size() - 1), id.begin());
  return id;
}

// The ranks of `comm` on this machine (not MPI_COMM_TYPE_SHARED, which splits
// by MPI's notion of locality).
OwnedComm node_comm(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto mine = machine_id();
  std::vector<std::array<char, 64>> all(static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(mine.data(), 64, MPI_CHAR, all.data(), 64, MPI_CHAR, comm),
            "MPI_Allgather(machine id)");
  const auto first = std::find(all.begin(), all.end(), mine);
  const int color = static_cast<int>(first - all.begin());
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm, color, rank, &node), "MPI_Comm_split(machine)");
  return OwnedComm(node);
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
  const OwnedComm node = node_comm(comm);
  return union_of_affinity(node.get());
}

int ranks_on_node(MPI_Comm comm) {
  const OwnedComm node = node_comm(comm);
  int n = 0;
  MPI_Comm_size(node.get(), &n);
  return n;
}

bool oversubscribed(MPI_Comm comm) {
  int local = 0;
  {
    const OwnedComm node = node_comm(comm);
    int ranks = 0;
    MPI_Comm_size(node.get(), &ranks);
    local = ranks > union_of_affinity(node.get()) ? 1 : 0;
  }
  int any = 0;
  check_mpi(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm),
            "MPI_Allreduce(oversubscribed)");
  return any != 0;
}

}  // namespace cb
