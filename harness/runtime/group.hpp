// The harness's groups: the interface is transports/group.hpp; MpiGroup
// (group_mpi.hpp) wraps a communicator; SelfGroup is the single process of a
// build or launch without MPI.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "transports/group.hpp"

namespace cb {

// The single-process group.
std::unique_ptr<Group> make_self_group();

// Resolves automatic: spin when every rank has a core, otherwise yield,
// which hands the core over at once but comes back as soon as the
// scheduler finds nothing else to run.
WaitPolicy resolve_wait_policy(WaitPolicy requested, bool oversubscribed);

}  // namespace cb
