// Lower bounds on any algorithm's cost (Chan et al. 2007; see
// algorithms/README.md), as Cost coefficients so they
// price with the same ModelParams as the algorithms. Each term bounds
// separately; together they bound T from below for every algorithm under
// the single-port, full-duplex model.
#pragma once

#include <cstdint>

#include "algorithms/params.hpp"
#include "algorithms/types.hpp"
#include "models/model_params.hpp"

namespace cb::models {

// n_bytes = the size S of the results CSV (nccl-tests' meaning): the full
// vector for allreduce, the total input for reduce_scatter, the total
// gathered output for allgather, the total each rank sends for alltoall.
//   allreduce       ceil(lg p) a + 2(p-1)/p n b + (p-1)/p n g
//   reduce_scatter  ceil(lg p) a +  (p-1)/p n b + (p-1)/p n g
//   allgather       ceil(lg p) a +  (p-1)/p n b
//   alltoall        ceil(lg p) a +  (p-1)/p n b  (not reachable together)
// p = 1 costs nothing.
Cost lower_bound(Collective coll, int p, double n_bytes);

// lower_bound priced in seconds under m. On two levels (m.two_level() and a
// layout, ranks_per_node > 0) no message costs less than the cheaper level's
// alpha and beta, so the bound is priced with those: priced with the
// network's alone it would exceed what a layout's intra-node messages let a
// schedule take. With a network gap (m.network_gap_s >= 0, two_level.hpp)
// the ceil(lg p) alpha of the single port becomes min(2 a, a + (p - 2) g'),
// a the cheaper alpha and g' = min(gap, intra alpha): a step's messages
// overlap their latencies. The one bound predict, fit and recommend report.
double lower_bound_seconds(Collective coll, int p, double n_bytes, int ranks_per_node,
                           const ModelParams& m);

}  // namespace cb::models
