// The two fp16 reduction paths behind reduce_inplace, exposed so tests can
// check both against the same reference on a CPU that has F16C (where
// reduce_inplace always takes the hardware one). Not for other callers.
#pragma once

#include <cstddef>

#include "algorithms/types.hpp"

namespace cb::kernels_detail {

// Whether this CPU has AVX2 and F16C (checked once).
bool fp16_hardware_available();
// The portable path: branch-free conversions of half.hpp, auto-vectorised.
void reduce_fp16_portable(ReduceOp op, void* dst, const void* src, std::size_t count);
// The F16C path; requires fp16_hardware_available().
void reduce_fp16_hardware(ReduceOp op, void* dst, const void* src, std::size_t count);

}  // namespace cb::kernels_detail
