// Algorithm: ring reduce-scatter.
// Restrictions: none; any p, any count (count = elements per rank's block).
// Idea: in step s (0 <= s < p-1) rank r sends its running partial sum of
// block r-1-s to r+1 and adds its own contribution to the partial of block
// r-2-s arriving from r-1; the last arrival is block r, now reduced over all
// ranks. In place the partial sums live in the input vector itself. Out of
// place the input is read-only, so partials alternate between the output and
// one scratch block (the one being sent is never the one being written),
// arranged so the last step lands in the output. segment_bytes > 0 cuts every
// step into k sub-steps.
// Cost = (p-1)·k·alpha + (p-1)·c·beta + (p-1)·c·gamma, c = count in bytes,
// k = 1 unsegmented, else ceil(count / s) with s = max(1, segment_bytes /
// element size) elements per segment (pipeline.hpp); with n = p·c
// this is the table's (p-1)α + (p-1)/p·n(β+γ).
// p = 1: a local copy (none in place).
#include "algorithms/common/ring_phases.hpp"
#include "algorithms/algorithm.hpp"

namespace cb::reduce_scatter {

void ring(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t c = params.count;
  const std::size_t n = c * static_cast<std::size_t>(p);
  const int chunks = ring_chunks(c, params);
  b.set_segment_bytes(
      params.segment_bytes == 0 ? 0 : largest_chunk_bytes(c, chunks, params.elem_size()));
  RingReduceScatterPlan rs;
  rs.contrib = RingBlocks{kInput, 0, n, p};
  rs.chunks = chunks;
  if (params.in_place) {
    // Block r of the input vector is this rank's output (in_place_layout).
    rs.acc = [blocks = rs.contrib](int, int i) { return blocks.block(i); };
    rs.acc_holds_contrib = true;
  } else {
    const Region out{kOutput, 0, c};
    const Region spare = p > 2 ? Region{b.add_scratch(c), 0, c} : out;
    rs.acc = [p, out, spare](int s, int) { return (p - 2 - s) % 2 == 0 ? out : spare; };
    rs.temp = b.add_scratch(block_count(c, chunks, 0));
  }
  ring_reduce_scatter_phase(b, p, r, rs);
}

Cost ring_cost(const CollParams& params) {
  const int chunks = ring_chunks(params.count, params);
  return ring_phase_cost(params.p, params.count, chunks, params.elem_size(), true);
}

}  // namespace cb::reduce_scatter
