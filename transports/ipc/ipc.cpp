#include "transports/ipc/ipc.hpp"

#include <fmt/format.h>

#include "transports/ipc/shm/host_operation.hpp"

#ifndef CB_IPC_HAVE_CUDA
#define CB_IPC_HAVE_CUDA 0
#endif
#ifndef CB_IPC_HAVE_NCCL
#define CB_IPC_HAVE_NCCL 0
#endif
#if CB_IPC_HAVE_CUDA
#include "transports/ipc/cuda_ipc/cuda_error.hpp"
#include "transports/ipc/cuda_ipc/cuda_operation.hpp"
#endif
#if CB_IPC_HAVE_NCCL
#include "transports/ipc/nccl/nccl_operation.hpp"
#endif

namespace cb::ipc {

MemoryKind parse_memory_kind(std::string_view name) {
  if (name == "host") return MemoryKind::host;
  if (name == "cuda") return MemoryKind::cuda;
  throw UsageError(fmt::format("unknown memory kind '{}' (--mem): valid: host, cuda", name));
}

std::string_view to_string(MemoryKind kind) { return kind == MemoryKind::host ? "host" : "cuda"; }

std::string_view transport_name(MemoryKind kind) {
  return kind == MemoryKind::host ? "ipc-host" : "ipc-cuda";
}

bool cuda_backend_built() { return CB_IPC_HAVE_CUDA != 0; }
bool nccl_built() { return CB_IPC_HAVE_NCCL != 0; }

void require_cuda_device() {
#if CB_IPC_HAVE_CUDA
  const std::string problem = missing_cuda_device();
  if (!problem.empty()) throw UsageError(problem);
#else
  throw UsageError("--mem cuda: this collbench was built without CUDA (nvcc or libcudart not "
                   "found when configuring)");
#endif
}

std::unique_ptr<Operation> make_ipc_operation(const Schedule& schedule, Group& group,
                                              MemoryKind kind, WaitPolicy wait) {
  if (kind == MemoryKind::host) return std::make_unique<HostIpcOperation>(schedule, group, wait);
#if CB_IPC_HAVE_CUDA
  return std::make_unique<CudaIpcOperation>(schedule, group, wait);
#else
  throw UsageError(
      "--mem cuda: this collbench was built without CUDA (nvcc or libcudart not found when "
      "configuring; install the CUDA toolkit and reconfigure)");
#endif
}

std::unique_ptr<Operation> make_nccl_operation(Collective coll, DataType dtype, ReduceOp op,
                                               bool in_place, std::size_t count, Group& group,
                                               const NcclOptions& options) {
#if CB_IPC_HAVE_NCCL
  return std::make_unique<NcclOperation>(coll, dtype, op, in_place, count, group, options);
#else
  (void)coll, (void)dtype, (void)op, (void)in_place, (void)count, (void)group, (void)options;
  throw UsageError(
      "--algo nccl: this collbench was built without NCCL (nccl.h / libnccl not found under the "
      "CUDA toolkit when configuring)");
#endif
}

}  // namespace cb::ipc
