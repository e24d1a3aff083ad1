// Hand-built schedule sets for the simulator tests: tiny patterns whose
// simulated time is known on paper, deadlocks the validator would reject, and
// a ring allreduce written out here so the engine's speed and window logic can
// be exercised independently of the registry.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "algorithms/builder.hpp"
#include "algorithms/common/partition.hpp"
#include "transports/sim/window.hpp"

namespace cb::sim::test {

// One rank's program, written through a ScheduleBuilder.
using RankProgram = std::function<void(ScheduleBuilder&, int rank, int p)>;

// A source that builds each rank's window with `program` (allreduce, fp32,
// sum; count only bounds the buffers).
inline ScheduleSource make_source(int p, RankProgram program, std::size_t count = 1 << 20) {
  return [p, program = std::move(program), count](int rank, std::uint64_t begin, std::uint64_t end) {
    CollParams params;
    params.p = p;
    params.rank = rank;
    params.count = count;
    ScheduleBuilder b(params, "hand", begin, end);
    program(b, rank, p);
    return std::move(b).finish();
  };
}

// Ring allreduce: p-1 reduce-scatter steps then p-1 allgather steps, block i
// of the vector travelling around the ring (count elements, fp32).
inline void ring_allreduce(ScheduleBuilder& b, int r, int p) {
  const std::size_t n = b.params().count;
  const int right = (r + 1) % p, left = (r + p - 1) % p;
  auto blk = [&](int i) {
    const Block x = block(n, p, ((i % p) + p) % p);
    return Region{kOutput, x.offset, x.count};
  };
  b.step();
  b.copy({kInput, 0, n}, {kOutput, 0, n});
  for (int k = 0; k < p - 1; ++k) {
    b.step();
    b.send(right, blk(r - k));
    b.recv_reduce(left, blk(r - k - 1));
  }
  for (int k = 0; k < p - 1; ++k) {
    b.step();
    b.send(right, blk(r + 1 - k));
    b.recv(left, blk(r - k));
  }
}

}  // namespace cb::sim::test
