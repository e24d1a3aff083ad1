// The IPC transport's CUDA backend: a schedule executed between the GPUs of
// one node through CUDA-IPC (protocol: common/executor.hpp).
//
// Each rank's user and scratch buffers live in one cudaMalloc allocation,
// exported with cudaIpcGetMemHandle and opened by the peers that receive from
// it with cudaIpcOpenMemHandle. A receive is one cudaMemcpyAsync (or one
// reduction kernel reading the peer's memory in place) on this rank's stream;
// completion is a cudaStreamSynchronize, after which the ack is published.
// The sequence counters live in host shared memory (a small segment per rank,
// unlinked once mapped, as in the host backend) and are polled by the CPU.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "algorithms/schedule.hpp"
#include "transports/ipc/common/executor.hpp"
#include "transports/common/buffer_layout.hpp"
#include "transports/ipc/shm/segment.hpp"
#include "transports/contract/group.hpp"
#include "transports/contract/transport.hpp"

namespace cb::ipc {

class CudaIpcOperation final : public Operation {
 public:
  // Collective over `group`. Throws std::runtime_error naming the failing CUDA
  // call (on every rank) when any rank has no usable device.
  CudaIpcOperation(const Schedule& schedule, Group& group, WaitPolicy wait);
  ~CudaIpcOperation() override;

  void write_input(std::span<const std::byte> bytes) override;   // host -> device
  void read_output(std::span<std::byte> bytes) override;         // device -> host
  void run() override;

 private:
  BufferLayout layout_;
  std::byte* device_data_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::vector<void*> opened_;  // peers' allocations opened through IPC
  ShmSegment control_;
  std::vector<ShmSegment> peer_controls_;
  IpcMemory mem_;
  std::unique_ptr<DataMover> mover_;
  std::unique_ptr<IpcExecutor> executor_;
};

}  // namespace cb::ipc
