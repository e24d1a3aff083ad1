// Pipelining a vector in chunks: how many chunks a segment size gives, and
// chunk c of a region. Units: elements, except segment_bytes (BYTES).
#pragma once

#include <algorithm>
#include <cstddef>

#include "algorithms/common/partition.hpp"
#include "algorithms/schedule.hpp"

namespace cb {

// Chunks for `elems` elements of `elem_size` bytes cut into segments of
// segment_bytes; segment_bytes == 0 asks for `default_chunks`. The result is
// at least 1 and at most elems (every chunk holds at least one element), or 0
// when elems == 0.
inline int pipeline_chunks(std::size_t elems, std::size_t elem_size, std::size_t segment_bytes,
                           int default_chunks) {
  if (elems == 0) return 0;
  std::size_t k = static_cast<std::size_t>(std::max(default_chunks, 1));
  if (segment_bytes > 0) {
    const std::size_t seg_elems = std::max<std::size_t>(segment_bytes / elem_size, 1);
    k = (elems + seg_elems - 1) / seg_elems;
  }
  k = std::min(k, elems);
  // Beyond INT_MAX chunks the schedule could not be built anyway.
  return static_cast<int>(std::min<std::size_t>(k, 1u << 30));
}

// Chunk c (0 <= c < chunks) of `whole`, cut as partition.hpp cuts blocks.
inline Region chunk_of(Region whole, int chunks, int c) {
  const Block blk = block(whole.count, chunks, c);
  return {whole.buf, whole.offset + blk.offset, blk.count};
}

// Bytes of the largest chunk: what the schedule records as its segment.
inline std::size_t largest_chunk_bytes(std::size_t elems, int chunks, std::size_t elem_size) {
  return chunks <= 0 ? 0 : block_count(elems, chunks, 0) * elem_size;
}

}  // namespace cb
