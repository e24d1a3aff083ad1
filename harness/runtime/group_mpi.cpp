#include "harness/runtime/group_mpi.hpp"

#include <stdexcept>
#include <vector>

#include "transports/mpi/wait.hpp"
#include "transports/watchdog.hpp"

namespace cb {

MpiGroup::MpiGroup(MPI_Comm comm, WaitPolicy wait) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  oversubscribed_ = cb::oversubscribed(comm_);
  ranks_on_node_ = cb::ranks_on_node(comm_);
  wait_ = resolve_wait_policy(wait, oversubscribed_);
}

MpiGroup::~MpiGroup() {
  if (comm_ != MPI_COMM_WORLD) MPI_Comm_free(&comm_);
}

void MpiGroup::barrier() {
  note_wait_step("harness barrier");
  cb::barrier(comm_, wait_);
}

void MpiGroup::max_to_root(std::span<double> values) {
  const int n = static_cast<int>(values.size());
  if (size_ == 1 || n == 0) return;
  // Reductions cannot alias: the root reduces into a copy.
  std::vector<double> in(values.begin(), values.end());
  MPI_Request req;
  check_mpi(MPI_Ireduce(in.data(), values.data(), n, MPI_DOUBLE, MPI_MAX, 0, comm_, &req),
            "MPI_Ireduce(times)");
  note_wait_step("harness reduction of the sample times");
  wait_collective(req, wait_, comm_);
}

std::uint64_t MpiGroup::sum_to_root(std::uint64_t value) {
  std::uint64_t out = value;
  MPI_Request req;
  check_mpi(MPI_Ireduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, 0, comm_, &req),
            "MPI_Ireduce(wrong)");
  note_wait_step("harness sum of wrong elements");
  wait_collective(req, wait_, comm_);
  return out;
}

bool MpiGroup::any(bool flag, std::optional<WaitPolicy> wait) {
  const int in = flag ? 1 : 0;
  int out = 0;
  MPI_Request req;
  check_mpi(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm_, &req), "MPI_Iallreduce(flag)");
  note_wait_step("harness agreement between ranks");
  wait_collective(req, wait.value_or(wait_), comm_);
  return out != 0;
}

std::int64_t MpiGroup::broadcast_from_root(std::int64_t value) {
  MPI_Request req;
  check_mpi(MPI_Ibcast(&value, 1, MPI_INT64_T, 0, comm_, &req), "MPI_Ibcast");
  note_wait_step("harness broadcast from rank 0");
  wait_collective(req, wait_, comm_);
  return value;
}

std::unique_ptr<Group> MpiGroup::first_ranks(int n, WaitPolicy wait) {
  MPI_Comm sub = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm_, rank_ < n ? 0 : MPI_UNDEFINED, rank_, &sub), "MPI_Comm_split");
  if (sub == MPI_COMM_NULL) return nullptr;
  return std::make_unique<MpiGroup>(sub, wait);
}

MPI_Comm mpi_comm_of(Group& g) {
  auto* m = dynamic_cast<MpiGroup*>(&g);
  if (!m) throw std::logic_error("a per-process transport needs an MPI group");
  return m->comm();
}

}  // namespace cb
