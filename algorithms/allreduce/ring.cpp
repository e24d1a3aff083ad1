// Algorithm: ring all-reduce (ring reduce-scatter, then ring all-gather).
// Restrictions: none; any p, any count (blocks may be empty when count < p).
// Idea: cut the vector into p blocks (the first count % p one element
// larger). In p-1 steps each rank passes a running partial sum to its right
// neighbour until rank r holds block r fully reduced; in p-1 more steps the
// reduced blocks travel once around the ring. Each link carries every block
// twice, which is bandwidth-optimal. segment_bytes > 0 cuts every step into
// k sub-steps (chunks of the blocks) to bound message sizes.
// Cost = 2(p-1)·k·alpha + 2(p-1)·B·beta + (p-1)·B·gamma, B = ceil(n/p)
// elements in bytes (the largest block), k = 1 unsegmented, else
// ceil(ceil(n/p) / s) with s = max(1, segment_bytes / element size) elements
// per segment (pipeline.hpp). For p dividing n this is the table's
// 2(p-1)α + 2(p-1)/p·nβ + (p-1)/p·nγ; uneven splits pay for the largest block.
// p = 1: a local copy (none in place).
#include "algorithms/algorithm.hpp"
#include "algorithms/common/cost_sum.hpp"
#include "algorithms/common/ring_phases.hpp"

namespace cb::allreduce {

void ring(const CollParams& params, ScheduleBuilder& b) {
  const int p = params.p, r = params.rank;
  const std::size_t n = params.count;
  const Region in_all{params.in_place ? kOutput : kInput, 0, n};
  const RingBlocks out{kOutput, 0, n, p};
  const int chunks = ring_chunks(out.largest(), params);
  b.set_segment_bytes(params.segment_bytes == 0
                          ? 0
                          : largest_chunk_bytes(out.largest(), chunks, params.elem_size()));
  RingReduceScatterPlan rs;
  rs.contrib = RingBlocks{in_all.buf, 0, n, p};
  rs.acc = [&out](int, int i) { return out.block(i); };
  rs.acc_holds_contrib = params.in_place;
  if (!params.in_place) rs.temp = b.add_scratch(block_count(out.largest(), chunks, 0));
  rs.chunks = chunks;
  ring_reduce_scatter_phase(b, p, r, rs);
  ring_allgather_phase(b, p, r, RingAllgatherPlan{out, std::nullopt, chunks});
}

Cost ring_cost(const CollParams& params) {
  const std::size_t largest = block_count(params.count, params.p, 0);
  const int chunks = ring_chunks(largest, params);
  const std::size_t es = params.elem_size();
  return cost_sum({ring_phase_cost(params.p, largest, chunks, es, true),
                   ring_phase_cost(params.p, largest, chunks, es, false)});
}

}  // namespace cb::allreduce
