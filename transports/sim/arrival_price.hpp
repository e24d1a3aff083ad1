// One pricing of a collective under a process arrival pattern (docs/arrival.md),
// shared by `predict --arrival`, `map --arrival` and `run --transport sim
// --arrival`, so that the three give the same times exactly:
//  - with --terms: the schedule model's per-rank clocks, each started at its
//    rank's arrival (models::priced_finish_s);
//  - without: the discrete-event simulation (transports/sim/simulator.hpp),
//    each rank's clock starting at its arrival (SimOptions::arrival_s). The
//    exact fast path steps aside: it holds for simultaneous starts only.
// The no-skew reference is priced the same way with every arrival at 0.
#pragma once

#include <optional>
#include <vector>

#include "algorithms/registry.hpp"
#include "transports/contract/arrival.hpp"
#include "transports/sim/cli_options.hpp"
#include "transports/sim/simulator.hpp"

namespace cb {

// Per draw (iteration 0, 1, ... of the pattern), SECONDS.
struct PricedArrival {
  std::vector<double> step_s;        // first arrival to last completion
  std::vector<double> after_last_s;  // last arrival to last completion
  std::vector<double> early_in_s;    // early ranks' mean time held (empty: none early)
  double noskew_s = 0;               // every rank at 0, the same pricing
  std::uint64_t events = 0;          // message events of the last simulation (0 with terms)
};

// `draws` iterations of `pattern` (check_ranks(params.p) passed). Throws
// what simulate() throws.
PricedArrival price_arrival(const AlgorithmEntry& algo, const CollParams& params,
                            const sim::NetworkParams& net, const sim::SimOptions& options,
                            const std::optional<PricedTerms>& priced,
                            const ArrivalPattern& pattern, int draws);

// How many draws a computed time under `pattern` takes: 1 when its delays
// never change, else `iterations` (-n) or kArrivalDraws.
int arrival_draws(const ArrivalPattern& pattern, int iterations);

}  // namespace cb
