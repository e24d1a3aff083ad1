// Inputs of every algorithm generator and cost function.
#pragma once

#include <cstddef>
#include <cstdint>

#include "algorithms/types.hpp"

namespace cb {

struct CollParams {
  Collective coll = Collective::allreduce;
  int p = 1;     // ranks, >= 1
  int rank = 0;  // 0 <= rank < p
  // Elements, with the collective's MPI meaning (see Schedule::count).
  std::size_t count = 0;
  DataType dtype = DataType::fp32;
  ReduceOp op = ReduceOp::sum;
  bool in_place = false;
  // Pipelining segment in BYTES for algorithms that pipeline (ring, tree,
  // dbtree); 0 asks for the algorithm's documented default.
  std::size_t segment_bytes = 0;
  // Node layout for the hierarchical algorithms (algorithms/hierarchical):
  // ranks [j*K, (j+1)*K) share node j, K = ranks_per_node; the last node may
  // hold fewer (p mod K). 0 (or K >= p) = all ranks on one node. Flat
  // algorithms ignore it.
  int ranks_per_node = 0;

  std::size_t elem_size() const { return element_size(dtype); }
};

// Coefficients of T = alpha*a + beta*b + gamma*c for one schedule, computed
// over global steps (rounds). For each step:
//   alpha += max over ranks of max(#sends, #receives) of that rank in the step
//   beta  += max over ranks of max(bytes sent, bytes received) in the step
//   gamma += max over ranks of bytes reduced (reduce-receives + local reduces)
// so a step without messages costs only its reductions, as in the simulator.
// Local copies and the final avg division are not costed. Units: alpha is a
// message count, beta and gamma are BYTES.
struct Cost {
  double alpha = 0;
  double beta = 0;
  double gamma = 0;
  friend bool operator==(const Cost&, const Cost&) = default;
};

}  // namespace cb
