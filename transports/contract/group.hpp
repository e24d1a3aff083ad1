// Group: the ranks that take part in one measurement, as the harness and the
// transports need them: barrier, reductions of timing samples to rank 0,
// agreement on flags, and the bootstrap a transport connects its peers over
// (allgather_bytes). The harness implements it over MPI (MpiGroup,
// harness/runtime/group_mpi.hpp) and for a single process (make_self_group);
// a transport sees only this interface, so another bootstrap (TCP, a file
// store) needs no change in the transports. Every collective call here waits
// with the group's WaitPolicy, so a barrier never spins on a core that an
// oversubscribed rank needs.
#pragma once

#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "transports/contract/transport.hpp"

namespace cb {

class Group {
 public:
  virtual ~Group() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Resolved policy (never WaitPolicy::automatic).
  virtual WaitPolicy wait_policy() const = 0;
  // Whether the group's ranks on a node outnumber the node's usable cores.
  virtual bool oversubscribed() const = 0;
  // This node's ranks of the group.
  virtual int ranks_on_node() const = 0;

  virtual void barrier() = 0;
  // Element-wise max over ranks; the result is valid on rank 0 only.
  virtual void max_to_root(std::span<double> values) = 0;
  // Sum over ranks; valid on rank 0 only.
  virtual std::uint64_t sum_to_root(std::uint64_t value) = 0;
  // Logical OR over ranks, valid everywhere (used to agree on stopping);
  // `wait` overrides the group's policy (idle ranks sleep).
  virtual bool any(bool flag, std::optional<WaitPolicy> wait = std::nullopt) = 0;
  // Rank 0's value, everywhere.
  virtual std::int64_t broadcast_from_root(std::int64_t value) = 0;
  // Every rank's bytes, everywhere, indexed by rank; sizes may differ. The
  // bootstrap of a transport's peers (segment names, handles, addresses).
  virtual std::vector<std::vector<std::byte>> allgather_bytes(std::span<const std::byte> mine) = 0;
  // Point-to-point between two ranks of the group, blocking, waiting with the
  // group's policy: the harness's clock synchronization (a window-based start,
  // harness/sweep/clock_sync.hpp) ping-pongs over them. Never called while an
  // Operation runs, so their messages cannot be mistaken for a transport's.
  // `bytes` must have the size the sender sent.
  virtual void send_bytes(int to, std::span<const std::byte> bytes) = 0;
  virtual void receive_bytes(int from, std::span<std::byte> bytes) = 0;

  // Collective over this group: a group of its first n ranks, with `wait`
  // resolved against that group's own oversubscription (automatic allowed);
  // nullptr on ranks >= n.
  virtual std::unique_ptr<Group> first_ranks(int n, WaitPolicy wait) = 0;
};

// Every rank's `value` (a trivially copyable struct), indexed by rank.
template <class T>
std::vector<T> allgather_value(Group& g, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto all = g.allgather_bytes(std::as_bytes(std::span<const T, 1>(&value, 1)));
  std::vector<T> out(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].size() != sizeof(T))
      throw std::runtime_error("allgather_value: a rank sent a value of another size");
    std::memcpy(&out[r], all[r].data(), sizeof(T));
  }
  return out;
}

// One trivially copyable value to rank `to`, or from rank `from` (Group::send_bytes).
template <class T>
void send_value(Group& g, int to, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  g.send_bytes(to, std::as_bytes(std::span<const T, 1>(&value, 1)));
}
template <class T>
T receive_value(Group& g, int from) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value{};
  g.receive_bytes(from, std::as_writable_bytes(std::span<T, 1>(&value, 1)));
  return value;
}

// This rank's index among the group's ranks on its node (same host name),
// for picking a device per process.
inline int node_local_rank(Group& g) {
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  const std::vector<std::array<char, 256>> hosts = allgather_value(g, host);
  int local = 0;
  for (int r = 0; r < g.rank(); ++r) local += hosts[static_cast<std::size_t>(r)] == host ? 1 : 0;
  return local;
}

}  // namespace cb
