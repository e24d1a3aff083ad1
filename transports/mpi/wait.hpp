// Waiting on MPI requests and sizing up the node, for the MPI transport and
// the harness's own barriers.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include "transports/contract/transport.hpp"

namespace cb {

// Completes every request. spin uses MPI_Waitall; yield/sleep poll
// MPI_Testall and give the core away between polls, because MPICH's blocking
// waits busy-poll inside UCX even when ranks outnumber cores (measured: a 4 B
// MPI_Allreduce took ~6 ms with 4 ranks on 2 cores).
// With a watchdog timeout (watchdog.hpp) every policy polls, and a wait that
// outlasts it throws WatchdogExpired; peer_of(i) (optional, called only
// then) is the rank requests[i] talks to, named in that message.
void wait_all(std::span<MPI_Request> requests, WaitPolicy policy,
              const std::function<int(std::size_t)>& peer_of = {});
// Completes a collective's request on `comm` (the expiry message names the
// other ranks of comm: MPI does not say which one is late).
void wait_collective(MPI_Request& request, WaitPolicy policy, MPI_Comm comm);

// Barrier on `comm` that waits with `policy` (MPI_Ibarrier + wait_collective
// unless spin without a watchdog, which uses MPI_Barrier).
void barrier(MPI_Comm comm, WaitPolicy policy);

// CPUs this node's (machine's) ranks of `comm` may run on: the union of their affinity
// masks (sched_getaffinity), so ranks pinned to distinct cores count each core
// once. Collective over comm.
int usable_cores_on_node(MPI_Comm comm);
// Ranks of `comm` on this node: the same machine (kernel boot id), also
// across network namespaces that MPI treats as remote hosts.
int ranks_on_node(MPI_Comm comm);
// Whether any node's ranks of `comm` outnumber its usable cores; the same
// answer on every rank. Collective over comm.
bool oversubscribed(MPI_Comm comm);

// Throws std::runtime_error naming `what`, this world rank and its host when
// an MPI call failed.
void check_mpi(int rc, const char* what);

// A communicator this code created, freed when it goes out of scope, also
// when an MPI call before that throws.
class OwnedComm {
 public:
  explicit OwnedComm(MPI_Comm comm) : comm_(comm) {}
  OwnedComm(OwnedComm&& o) noexcept : comm_(o.comm_) { o.comm_ = MPI_COMM_NULL; }
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  OwnedComm& operator=(OwnedComm&&) = delete;
  ~OwnedComm();
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_;
};

}  // namespace cb
