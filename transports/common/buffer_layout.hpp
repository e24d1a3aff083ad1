// Where a rank's buffers lie in its one data allocation (a host vector, an
// MPI buffer, a shared-memory segment or a device allocation): every offset
// here is in BYTES from the allocation's start. The one region -> memory
// mapping of every executor (reference, simulator, MPI, IPC).
//
// Out of place: input, output, then each scratch buffer. In place: one user
// area of in_place_layout(...).total elements holding both views (kInput at
// input_offset, kOutput at output_offset), then scratch. Every buffer starts
// on a 256-byte boundary (vector loads, CUDA's allocation granularity).
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/schedule.hpp"

namespace cb {

inline constexpr std::size_t kBufferAlign = 256;

struct BufferLayout {
  std::size_t elem_size = 0;
  std::vector<std::size_t> buffer_offset;  // by BufferId
  std::size_t input_offset = 0;            // == buffer_offset[kInput]
  std::size_t input_bytes = 0;
  std::size_t output_offset = 0;           // == buffer_offset[kOutput]
  std::size_t output_bytes = 0;
  std::size_t total_bytes = 0;

  // Byte offset of a region's first element.
  std::size_t offset_of(const Region& r) const {
    return buffer_offset.at(r.buf) + r.offset * elem_size;
  }
};

BufferLayout buffer_layout(const Schedule& s);

}  // namespace cb
