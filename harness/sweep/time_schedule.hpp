// Timing a hand-built schedule (not a collective of the registry) through a
// transport's own Operation, as collectives are timed (timing.hpp): the
// microbenchmarks of `collbench calibrate` and the mode probe that `collbench
// run` takes before each configuration (mode_probe.hpp) share it.
#pragma once

#include <optional>
#include <string>

#include "algorithms/schedule.hpp"
#include "transports/contract/transport_spec.hpp"
#include "harness/runtime/group.hpp"
#include "transports/contract/measure.hpp"

namespace cb {

// The median seconds of one run of `s` (each sample the max over the
// group's ranks) on group rank 0, 0 on the others; nullopt on every rank
// when a signal stopped the sampling (the ranks agree). `label` is the
// transport's CSV name ("mpi", "ipc-host"); `s` is this rank's schedule.
std::optional<double> time_schedule(const TransportSpec& t, const std::string& label,
                                    const Schedule& s, Group& group, const SamplingPlan& plan);

}  // namespace cb
