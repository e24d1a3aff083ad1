// The harness's groups: the interface is transports/contract/group.hpp; MpiGroup
// (group_mpi.hpp) wraps a communicator; SelfGroup is the single process of a
// build or launch without MPI.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "transports/contract/group.hpp"

namespace cb {

// The single-process group.
std::unique_ptr<Group> make_self_group();

// Whether the 1-minute load average exceeds the machine's online cores:
// other work already wants every core, and a spinning rank would hold one.
bool machine_busy();

// Resolves automatic: spin when every rank has a core and the machine is
// not busy (machine_busy), otherwise yield, which hands the core over at
// once but comes back as soon as the scheduler finds nothing else to run.
WaitPolicy resolve_wait_policy(WaitPolicy requested, bool oversubscribed);

}  // namespace cb
