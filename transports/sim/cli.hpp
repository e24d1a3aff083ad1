// The simulator as a Measurer (measure.hpp), for `run --transport sim` and
// `collbench map`.
#pragma once

#include <memory>
#include <optional>

#include "transports/contract/measure.hpp"
#include "transports/sim/cli_options.hpp"

namespace cb {

struct SimMeasurerOptions {
  bool verify = false;  // --sim-verify: move real bytes and count wrong elements
  bool stats = false;   // --sim-stats: engine figures per case on stderr
  // > 0 (--max-events, run and map): cases whose closed-form rounds x ranks
  // exceed this many message events (unless the exact fast path answers
  // them), or one of whose steps does not fit the simulator's memory limit,
  // get Measurement::skipped instead of times, said once on stderr too.
  // 0: never skip; the memory limit throws sim::WindowTooLarge.
  double max_events = 0;
  // --terms: each case's time is the schedule priced with the calibrated
  // terms (models::priced_seconds, the function `predict --terms` uses)
  // instead of the event simulation; p above models::kMaxPricedRanks is
  // skipped with a note.
  std::optional<PricedTerms> priced;
};

std::unique_ptr<Measurer> make_sim_measurer(const sim::NetworkParams& net,
                                            const sim::SimOptions& options,
                                            const SimMeasurerOptions& flags);

}  // namespace cb
