#include "transports/mpi/pmpi/comm_state.hpp"

#include <atomic>

#include "transports/mpi/wait.hpp"

namespace cb::pmpi {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;
// Bumped whenever a state is freed: a thread's remembered (communicator,
// state) pair is only trusted while the epoch it saw is current, since a
// freed communicator's handle may be reused for a new one.
std::atomic<unsigned> g_epoch{0};

struct LastState {
  MPI_Comm comm = MPI_COMM_NULL;
  CommState* state = nullptr;
  unsigned epoch = 0;
};
// initial-exec: the library is preloaded, so its TLS is static and each
// access is one load instead of a __tls_get_addr call.
thread_local LastState t_last __attribute__((tls_model("initial-exec")));

int delete_state(MPI_Comm, int, void* value, void*) {
  g_epoch.fetch_add(1, std::memory_order_acq_rel);
  auto* state = static_cast<CommState*>(value);
  if (state->comm != MPI_COMM_NULL) PMPI_Comm_free(&state->comm);
  delete state;
  return MPI_SUCCESS;
}

}  // namespace

void create_keyval() {
  check_mpi(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_keyval, nullptr),
            "MPI_Comm_create_keyval");
}

void free_keyval() {
  if (g_keyval == MPI_KEYVAL_INVALID) return;
  // The predefined communicators outlive every user of them; their state
  // goes now, while MPI can still free the private copies.
  PMPI_Comm_delete_attr(MPI_COMM_WORLD, g_keyval);
  PMPI_Comm_delete_attr(MPI_COMM_SELF, g_keyval);
  PMPI_Comm_free_keyval(&g_keyval);
}

CommState* remembered_state(MPI_Comm comm) {
  const unsigned epoch = g_epoch.load(std::memory_order_acquire);
  return t_last.state && t_last.comm == comm && t_last.epoch == epoch ? t_last.state : nullptr;
}

CommState& state_of(MPI_Comm comm, WaitPolicy configured) {
  if (CommState* known = remembered_state(comm)) return *known;
  const unsigned epoch = g_epoch.load(std::memory_order_acquire);
  void* value = nullptr;
  int found = 0;
  check_mpi(PMPI_Comm_get_attr(comm, g_keyval, &value, &found), "MPI_Comm_get_attr");
  if (found) {
    t_last = {comm, static_cast<CommState*>(value), epoch};
    return *t_last.state;
  }
  auto state = std::make_unique<CommState>();
  int inter = 0;
  check_mpi(PMPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  state->inter = inter != 0;
  if (!state->inter) {
    check_mpi(PMPI_Comm_size(comm, &state->p), "MPI_Comm_size");
    check_mpi(PMPI_Comm_rank(comm, &state->rank), "MPI_Comm_rank");
    check_mpi(PMPI_Comm_split(comm, 0, state->rank, &state->comm), "MPI_Comm_split");
    state->wait = configured;
    if (configured == WaitPolicy::automatic)
      state->wait = oversubscribed(state->comm) ? WaitPolicy::yield : WaitPolicy::spin;
  }
  check_mpi(PMPI_Comm_set_attr(comm, g_keyval, state.get()), "MPI_Comm_set_attr");
  return *state.release();
}

}  // namespace cb::pmpi
