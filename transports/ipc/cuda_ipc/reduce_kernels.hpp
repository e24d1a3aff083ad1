// Device reduction kernels of the CUDA-IPC backend (reduce_kernels.cu), with
// the semantics of the host kernels (transports/kernels/reduce.hpp): integer
// sum/prod wrap, fp16/bf16 computed in float and rounded to nearest even,
// float min/max propagate NaN and keep dst's zero between -0 and +0, avg
// reduces as sum. Counts are ELEMENTS. src may point into a peer's memory
// opened with cudaIpcOpenMemHandle: a reduce-receive reads it in place.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "algorithms/types.hpp"

namespace cb::ipc {

// dst[i] = dst[i] (op) src[i], enqueued on `stream`; returns the launch's error.
cudaError_t launch_reduce(DataType dtype, ReduceOp op, void* dst, const void* src,
                          std::size_t count, cudaStream_t stream);
// dst[i] = dst[i] / p (integers truncate; floats divide in the type, fp16/bf16 in float).
cudaError_t launch_divide(DataType dtype, void* dst, std::size_t count, int p,
                          cudaStream_t stream);

}  // namespace cb::ipc
