// Cost of a schedule set, read off the schedules themselves, with exactly the
// convention of Cost in params.hpp: per global step, alpha adds the largest
// message count any rank posts (max of its sends and receives), beta the
// largest BYTES any rank sends or receives, gamma the largest BYTES any rank
// reduces (reduce-receives plus local reduces). Steps in which no rank
// communicates add nothing (params.hpp: "for each step in which any rank
// communicates"); local copies and the avg division are never costed.
// Tests hold every algorithm's closed_form_cost to this.
#pragma once

#include <span>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/schedule.hpp"

namespace cb {

// all_ranks[r] is rank r's whole schedule (not a window).
Cost schedule_cost(std::span<const Schedule> all_ranks);

// The same, one entry per global step (steps without communication give a
// zero Cost); the sum over the vector is schedule_cost().
std::vector<Cost> per_step_cost(std::span<const Schedule> all_ranks);

// Every rank's schedule for params (params.rank is ignored), rank r at [r].
std::vector<Schedule> make_all_schedules(const AlgorithmEntry& algo, CollParams params);

}  // namespace cb
