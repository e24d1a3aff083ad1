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

int select_device(MPI_Comm comm) {
  // The collective part first, so that a rank without a device cannot leave
  // its peers waiting in it.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local_rank = 0;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  if (const std::string problem = missing_cuda_device(); !problem.empty())
    throw UsageError(problem);
  int devices = 0;
  cuda_check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  const int device = local_rank % devices;
  cuda_check(cudaSetDevice(device), "cudaSetDevice");
  return device;
}

}  // namespace cb::ipc
