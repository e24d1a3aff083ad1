// The `nccl` baseline: NCCL's own collectives behind the Operation interface,
// so the harness times and verifies them exactly like collbench's schedules.
//
// One GPU per rank (local rank modulo visible devices). The communicator is
// bootstrapped over the Group: rank 0's ncclGetUniqueId reaches every rank
// through allgather_bytes, then ncclCommInitRank. NCCL_ALGO / NCCL_PROTO are set from the
// options before the communicator is created (NCCL reads them at init).
// run() enqueues the collective on this rank's stream and returns after
// cudaStreamSynchronize. avg runs ncclSum then divides by p once with the
// CUDA-IPC backend's kernel, as the MPI baseline does, so every baseline
// computes avg identically. In-place pointers follow nccl.h's conventions,
// which match in_place_layout, except all-to-all: nccl.h defines no in-place
// form, so in place copies the buffer to a device scratch buffer first (one
// cudaMemcpyAsync inside the timed run, as a library would do) and exchanges
// from there.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>

#include "algorithms/types.hpp"
#include "transports/ipc/ipc.hpp"
#include "transports/contract/group.hpp"
#include "transports/contract/transport.hpp"

namespace cb::ipc {

class NcclOperation final : public Operation {
 public:
  NcclOperation(Collective coll, DataType dtype, ReduceOp op, bool in_place, std::size_t count,
                Group& group, const NcclOptions& options);
  ~NcclOperation() override;

  void write_input(std::span<const std::byte> bytes) override;
  void read_output(std::span<std::byte> bytes) override;
  void run() override;

 private:
  Collective coll_;
  DataType dtype_;
  ReduceOp op_;
  std::size_t count_;
  int p_ = 1;
  int rank_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::byte* input_ = nullptr;   // device
  std::byte* output_ = nullptr;  // device
  std::byte* input_alloc_ = nullptr;
  std::byte* output_alloc_ = nullptr;  // null when in place
  std::byte* send_scratch_ = nullptr;  // in-place all-to-all only
  std::size_t input_bytes_ = 0, output_bytes_ = 0;
};

}  // namespace cb::ipc
