// The allgather algorithms. Each file algorithms/allgather/<name>.cpp defines the
// generator <name>() and its closed-form cost <name>_cost(); index.cpp lists them.
#pragma once

#include "algorithms/builder.hpp"
#include "algorithms/params.hpp"

namespace cb::allgather {

void naive(const CollParams& params, ScheduleBuilder& b);
Cost naive_cost(const CollParams& params);
void ps(const CollParams& params, ScheduleBuilder& b);
Cost ps_cost(const CollParams& params);
void ring(const CollParams& params, ScheduleBuilder& b);
Cost ring_cost(const CollParams& params);
void tree(const CollParams& params, ScheduleBuilder& b);
Cost tree_cost(const CollParams& params);
void butterfly(const CollParams& params, ScheduleBuilder& b);
Cost butterfly_cost(const CollParams& params);
void rhd(const CollParams& params, ScheduleBuilder& b);
Cost rhd_cost(const CollParams& params);
void bruck(const CollParams& params, ScheduleBuilder& b);
Cost bruck_cost(const CollParams& params);

}  // namespace cb::allgather
