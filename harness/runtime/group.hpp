// Group: the ranks that take part in one measurement, as the harness needs
// them (barrier, reductions of timing samples to rank 0, agreement on flags).
// MpiGroup (group_mpi.hpp) wraps a communicator; SelfGroup is the single
// process of a build or launch without MPI. Every collective call here waits
// with the group's WaitPolicy, so a harness barrier never spins on a core that
// an oversubscribed rank needs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "transports/transport.hpp"

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

  // Collective over this group: a group of its first n ranks, with `wait`
  // resolved against that group's own oversubscription (automatic allowed);
  // nullptr on ranks >= n.
  virtual std::unique_ptr<Group> first_ranks(int n, WaitPolicy wait) = 0;
};

// The single-process group.
std::unique_ptr<Group> make_self_group();

// Resolves automatic: spin when every rank has a core, otherwise yield,
// which hands the core over at once but comes back as soon as the
// scheduler finds nothing else to run.
WaitPolicy resolve_wait_policy(WaitPolicy requested, bool oversubscribed);

}  // namespace cb
