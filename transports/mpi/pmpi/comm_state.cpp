#include "transports/mpi/pmpi/comm_state.hpp"

#include "transports/mpi/wait.hpp"

namespace cb::pmpi {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;

int delete_state(MPI_Comm, int, void* value, void*) {
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

CommState& state_of(MPI_Comm comm, WaitPolicy configured) {
  void* value = nullptr;
  int found = 0;
  check_mpi(PMPI_Comm_get_attr(comm, g_keyval, &value, &found), "MPI_Comm_get_attr");
  if (found) return *static_cast<CommState*>(value);
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
