// The IPC transport's host backend: a schedule executed between processes of
// one node through POSIX shared memory (protocol: common/executor.hpp).
//
// Each rank's control block, user buffers and scratch buffers live in ONE
// shared-memory segment it creates (shm/segment.hpp); the names are exchanged
// through the Group (allgather_bytes), every peer that receives from this rank maps it
// read-only, and once all have mapped it (a barrier) the name is unlinked, so
// a run leaves nothing in /dev/shm even if it is killed later.
#pragma once

#include <memory>
#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/ipc/common/executor.hpp"
#include "transports/common/buffer_layout.hpp"
#include "transports/ipc/shm/segment.hpp"
#include "transports/contract/group.hpp"
#include "transports/contract/transport.hpp"

namespace cb::ipc {

class HostIpcOperation final : public Operation {
 public:
  // Collective over `group` (schedule.p ranks, this process at schedule.rank).
  // `wait` must be resolved (spin, yield or sleep).
  HostIpcOperation(const Schedule& schedule, Group& group, WaitPolicy wait);
  ~HostIpcOperation() override;

  void write_input(std::span<const std::byte> bytes) override;
  void read_output(std::span<std::byte> bytes) override;
  void run() override;

 private:
  BufferLayout layout_;
  ShmSegment own_;
  std::vector<ShmSegment> peers_;
  IpcMemory mem_;
  std::unique_ptr<DataMover> mover_;
  std::unique_ptr<IpcExecutor> executor_;
};

}  // namespace cb::ipc
