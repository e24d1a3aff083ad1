// The alltoall algorithms. Each file algorithms/alltoall/<name>.cpp defines the
// generator <name>() and its closed-form cost <name>_cost(); index.cpp lists them.
#pragma once

#include "algorithms/builder.hpp"
#include "algorithms/params.hpp"

namespace cb::alltoall {

void naive(const CollParams& params, ScheduleBuilder& b);
Cost naive_cost(const CollParams& params);
void ps(const CollParams& params, ScheduleBuilder& b);
Cost ps_cost(const CollParams& params);
void ring(const CollParams& params, ScheduleBuilder& b);
Cost ring_cost(const CollParams& params);
void butterfly(const CollParams& params, ScheduleBuilder& b);
Cost butterfly_cost(const CollParams& params);
void bruck(const CollParams& params, ScheduleBuilder& b);
Cost bruck_cost(const CollParams& params);
void pairwise(const CollParams& params, ScheduleBuilder& b);
Cost pairwise_cost(const CollParams& params);

}  // namespace cb::alltoall
