// Errors from the CUDA runtime as one line naming the call, and the choice of
// this rank's device.
#pragma once

#include <cuda_runtime_api.h>
#include "transports/contract/group.hpp"

#include <string>

namespace cb::ipc {

// Throws std::runtime_error "<call>: <cudaGetErrorString>" unless rc is cudaSuccess.
void cuda_check(cudaError_t rc, const char* call);

// Empty when a device is visible, else one line naming the call and CUDA's
// message, e.g. "cudaGetDeviceCount: no CUDA device: CUDA driver version is
// insufficient for CUDA runtime version (cudaErrorInsufficientDriver)".
std::string missing_cuda_device();

// Collective over `group`. Makes device (local rank on this node) % (visible devices) current and
// returns it. Throws "cudaGetDeviceCount: no CUDA device ..." where none is
// visible, so selecting a GPU path on a machine without one fails in one line.
int select_device(Group& group);

}  // namespace cb::ipc
