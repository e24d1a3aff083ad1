// Entry points of the IPC transport and the NCCL baseline, for the harness.
// Everything behind them is collective over the given communicator, whose
// ranks must all run on one node (IPC maps memory between processes).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "algorithms/schedule.hpp"
#include "transports/contract/group.hpp"
#include "transports/contract/transport.hpp"

namespace cb::ipc {

// Where the IPC transport's buffers live (--mem).
enum class MemoryKind { host, cuda };
// "host" or "cuda"; anything else throws UsageError naming it.
MemoryKind parse_memory_kind(std::string_view name);
std::string_view to_string(MemoryKind kind);
// CSV transport column: "ipc-host" or "ipc-cuda".
std::string_view transport_name(MemoryKind kind);

// Whether this build has the CUDA-IPC backend / the NCCL baseline (found the
// CUDA toolkit / NCCL at configure time). A build having them says nothing
// about a device being present.
bool cuda_backend_built();
bool nccl_built();

// Throws UsageError when this process cannot use a GPU: the build lacks CUDA,
// or cudaGetDeviceCount fails or finds none (the message names the call and
// CUDA's own text). Local to this process; the harness calls it on every rank
// before a sweep with --mem cuda starts.
void require_cuda_device();

// One rank's schedule over IPC. `wait` must be resolved (spin/yield/sleep);
// the CUDA backend waits for its own stream and ignores it for device work.
// Throws UsageError when `kind` is not built; std::runtime_error naming the
// failing call (e.g. "cudaGetDeviceCount: no CUDA-capable device is
// detected") when the setup fails.
std::unique_ptr<Operation> make_ipc_operation(const Schedule& schedule, Group& group,
                                              MemoryKind kind, WaitPolicy wait);

// NCCL's own algorithm and protocol choice (NCCL_ALGO / NCCL_PROTO values,
// e.g. "ring", "tree", "simple", "ll128"); empty = NCCL's default. Applied to
// the environment before the communicator is created.
struct NcclOptions {
  std::string algo;
  std::string proto;
};

// The `nccl` baseline: ncclAllReduce / ncclReduceScatter / ncclAllGather /
// ncclAlltoAll on device buffers, one GPU per rank (local rank modulo the
// visible devices), communicator bootstrapped over `group`. `count` has the
// collective's MPI meaning (Schedule::count). Buffer views as in_place_layout.
std::unique_ptr<Operation> make_nccl_operation(Collective coll, DataType dtype, ReduceOp op,
                                               bool in_place, std::size_t count, Group& group,
                                               const NcclOptions& options);

}  // namespace cb::ipc
