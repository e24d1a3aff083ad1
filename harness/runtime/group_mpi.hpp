// Group over an MPI communicator. Its waits poll with the resolved policy
// (transports/mpi/wait.hpp). Per-process transports (mpi, ipc) reach the
// communicator through mpi_comm_of (transports/contract/mpi_comm.hpp).
#pragma once

#include <mpi.h>

#include <optional>

#include "harness/runtime/group.hpp"
#include "transports/contract/mpi_comm.hpp"

namespace cb {

class MpiGroup final : public Group {
 public:
  // Takes ownership of `comm` (freed on destruction) unless it is
  // MPI_COMM_WORLD. Collective over comm: measures oversubscription.
  MpiGroup(MPI_Comm comm, WaitPolicy wait);
  ~MpiGroup() override;
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;

  MPI_Comm comm() const { return comm_; }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  WaitPolicy wait_policy() const override { return wait_; }
  bool oversubscribed() const override { return oversubscribed_; }
  int ranks_on_node() const override { return ranks_on_node_; }
  void barrier() override;
  void max_to_root(std::span<double> values) override;
  std::uint64_t sum_to_root(std::uint64_t value) override;
  bool any(bool flag, std::optional<WaitPolicy> wait) override;
  std::int64_t broadcast_from_root(std::int64_t value) override;
  std::vector<std::vector<std::byte>> allgather_bytes(std::span<const std::byte> mine) override;
  void send_bytes(int to, std::span<const std::byte> bytes) override;
  void receive_bytes(int from, std::span<std::byte> bytes) override;
  std::unique_ptr<Group> first_ranks(int n, WaitPolicy wait) override;
  // rank_subgroup (rank_subgroup.hpp) for a communicator.
  std::unique_ptr<Group> some_ranks(std::span<const int> members, WaitPolicy wait);

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  bool oversubscribed_ = false;
  int ranks_on_node_ = 1;
  WaitPolicy wait_;
};

}  // namespace cb
