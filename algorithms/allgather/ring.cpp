// Algorithm: ring all-gather.
// Restrictions: none; any p, any count (count = elements per rank).
// Idea: in step s (0 <= s < p-1) rank r forwards block r-s to r+1 and
// receives block r-1-s from r-1, so every block travels once around the ring.
// Out of place the first step sends straight from the input and copies it
// into the output alongside. segment_bytes > 0 cuts every step into k
// sub-steps.
// Cost = (p-1)·k·alpha + (p-1)·c·beta, c = count in bytes, k = 1 unsegmented,
// else ceil(count / s) with s = max(1, segment_bytes / element size) elements
// per segment (pipeline.hpp); with n = p·c this is the table's
// (p-1)α + (p-1)/p·nβ.
// p = 1: a local copy (none in place).
#include "algorithms/algorithm.hpp"
#include "algorithms/common/ring_phases.hpp"

namespace cb::allgather {

void ring(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t c = params.count;
  const RingBlocks out{kOutput, 0, c * static_cast<std::size_t>(p), p};
  const int chunks = ring_chunks(c, params);
  b.set_segment_bytes(
      params.segment_bytes == 0 ? 0 : largest_chunk_bytes(c, chunks, params.elem_size()));
  std::optional<Region> own;
  if (!params.in_place) own = Region{kInput, 0, c};
  ring_allgather_phase(b, p, r, RingAllgatherPlan{out, own, chunks});
}

Cost ring_cost(const CollParams& params) {
  const int chunks = ring_chunks(params.count, params);
  return ring_phase_cost(params.p, params.count, chunks, params.elem_size(), false);
}

}  // namespace cb::allgather
