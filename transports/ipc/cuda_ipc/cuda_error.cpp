#include "transports/ipc/cuda_ipc/cuda_error.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace cb::ipc {

void cuda_check(cudaError_t rc, const char* call) {
  if (rc != cudaSuccess)
    throw std::runtime_error(fmt::format("{}: {} ({})", call, cudaGetErrorString(rc),
                                         cudaGetErrorName(rc)));
}

int select_device(MPI_Comm comm) {
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  if (rc != cudaSuccess)
    throw std::runtime_error(fmt::format("cudaGetDeviceCount: no CUDA device: {} ({})",
                                         cudaGetErrorString(rc), cudaGetErrorName(rc)));
  if (devices == 0) throw std::runtime_error("cudaGetDeviceCount: no CUDA device (0 visible)");
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local_rank = 0;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  const int device = local_rank % devices;
  cuda_check(cudaSetDevice(device), "cudaSetDevice");
  return device;
}

}  // namespace cb::ipc
