#include "harness/runtime/group_mpi.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <vector>

#include "harness/runtime/phase_deadline.hpp"
#include "harness/runtime/rank_subgroup.hpp"
#include "transports/mpi/wait.hpp"
#include "transports/watchdog.hpp"

namespace cb {

MpiGroup::MpiGroup(MPI_Comm comm, WaitPolicy wait) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  // Blocking collectives inside MPI (node split, core count exchange).
  const PhaseDeadline deadline("rank group set-up");
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

std::vector<std::vector<std::byte>> MpiGroup::allgather_bytes(std::span<const std::byte> mine) {
  // Sizes first, then the bytes (MPI_Iallgatherv), both waiting with the policy.
  const long long n = static_cast<long long>(mine.size());
  std::vector<long long> sizes(static_cast<std::size_t>(size_));
  MPI_Request req;
  check_mpi(MPI_Iallgather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, comm_, &req),
            "MPI_Iallgather(sizes)");
  note_wait_step("bootstrap exchange between ranks");
  wait_collective(req, wait_, comm_);
  std::vector<int> counts(sizes.size()), displs(sizes.size());
  long long total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    if (total + sizes[r] > INT_MAX) throw std::runtime_error("allgather_bytes: over 2 GiB in all");
    displs[r] = static_cast<int>(total);
    counts[r] = static_cast<int>(sizes[r]);
    total += sizes[r];
  }
  std::vector<std::byte> all(static_cast<std::size_t>(total));
  check_mpi(MPI_Iallgatherv(mine.data(), static_cast<int>(n), MPI_BYTE, all.data(), counts.data(),
                            displs.data(), MPI_BYTE, comm_, &req),
            "MPI_Iallgatherv");
  wait_collective(req, wait_, comm_);
  std::vector<std::vector<std::byte>> out(sizes.size());
  for (std::size_t r = 0; r < sizes.size(); ++r)
    out[r].assign(all.begin() + displs[r], all.begin() + displs[r] + counts[r]);
  return out;
}

namespace {
// The harness's point-to-point tag. Schedules use tags 0..32767 too
// (schedule_plan.cpp), but every message of a run is matched before run()
// returns, and these are sent only between runs, so the two never meet.
// 32767 is the largest tag MPI guarantees (MPI_TAG_UB >= 32767).
constexpr int kHarnessTag = 32767;

// Waits for one harness message to or from `peer` under the group's policy,
// naming the step for the watchdog.
void wait_harness(MPI_Request& req, WaitPolicy wait, int peer, const char* step) {
  note_wait_step(step);
  wait_all(std::span<MPI_Request>(&req, 1), wait, [peer](std::size_t) { return peer; });
}
}  // namespace

void MpiGroup::send_bytes(int to, std::span<const std::byte> bytes) {
  MPI_Request req;
  check_mpi(MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, kHarnessTag,
                      comm_, &req),
            "MPI_Isend(harness)");
  wait_harness(req, wait_, to, "harness clock synchronization (send)");
}

void MpiGroup::receive_bytes(int from, std::span<std::byte> bytes) {
  MPI_Request req;
  check_mpi(MPI_Irecv(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, from, kHarnessTag,
                      comm_, &req),
            "MPI_Irecv(harness)");
  wait_harness(req, wait_, from, "harness clock synchronization (receive)");
}

std::unique_ptr<Group> MpiGroup::first_ranks(int n, WaitPolicy wait) {
  MPI_Comm sub = MPI_COMM_NULL;
  {
    // Blocking inside MPI: the wait loops' watchdog cannot see a stopped peer here.
    const PhaseDeadline deadline("MPI_Comm_split of a rank group");
    check_mpi(MPI_Comm_split(comm_, rank_ < n ? 0 : MPI_UNDEFINED, rank_, &sub),
              "MPI_Comm_split");
  }
  if (sub == MPI_COMM_NULL) return nullptr;
  return std::make_unique<MpiGroup>(sub, wait);
}

std::unique_ptr<Group> MpiGroup::some_ranks(std::span<const int> members, WaitPolicy wait) {
  const auto at = std::find(members.begin(), members.end(), rank_);
  const bool in = at != members.end();
  MPI_Comm sub = MPI_COMM_NULL;
  {
    const PhaseDeadline deadline("MPI_Comm_split of a rank group");
    check_mpi(MPI_Comm_split(comm_, in ? 0 : MPI_UNDEFINED,
                             in ? static_cast<int>(at - members.begin()) : 0, &sub),
              "MPI_Comm_split");
  }
  if (sub == MPI_COMM_NULL) return nullptr;
  return std::make_unique<MpiGroup>(sub, wait);
}

std::unique_ptr<Group> rank_subgroup(Group& g, std::span<const int> members, WaitPolicy wait) {
  if (auto* m = dynamic_cast<MpiGroup*>(&g)) return m->some_ranks(members, wait);
  return one_process_subgroup(g, members, wait);
}

MPI_Comm mpi_comm_of(Group& g) {
  auto* m = dynamic_cast<MpiGroup*>(&g);
  if (!m) throw std::logic_error("a per-process transport needs an MPI group");
  return m->comm();
}

}  // namespace cb
