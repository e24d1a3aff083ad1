#include "transports/ipc/cuda_ipc/cuda_error.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "algorithms/types.hpp"

namespace cb::ipc {

void cuda_check(cudaError_t rc, const char* call) {
  if (rc != cudaSuccess)
    throw std::runtime_error(fmt::format("{}: {} ({})", call, cudaGetErrorString(rc),
                                         cudaGetErrorName(rc)));
}

std::string missing_cuda_device() {
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess)
    return fmt::format("cudaGetDeviceCount: no CUDA device: {} ({})", cudaGetErrorString(rc),
                       cudaGetErrorName(rc));
  if (devices == 0) return "cudaGetDeviceCount: no CUDA device (0 visible)";
  return "";
}

int select_device(Group& group) {
  // The collective part first, so that a rank without a device cannot leave
  // its peers waiting in it.
  const int local_rank = node_local_rank(group);
  if (const std::string problem = missing_cuda_device(); !problem.empty())
    throw UsageError(problem);
  int devices = 0;
  cuda_check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  const int device = local_rank % devices;
  cuda_check(cudaSetDevice(device), "cudaSetDevice");
  return device;
}

}  // namespace cb::ipc
