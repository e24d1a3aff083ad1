// The simulator's command-line flags, shared by `collbench run --transport sim`
// and `collbench map`: the network (alpha, beta, gamma in SI or unit forms, or
// a calibrate/fit file), the optional refinements, and engine knobs.
//
// Precedence: defaults (transports/sim/net_params.hpp: alpha 2us, 10 GB/s,
// 20 GB/s reduce), then --params FILE, then explicit flags.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "models/model_params.hpp"
#include "models/terms.hpp"

#include "transports/sim/net_params.hpp"
#include "transports/sim/simulator.hpp"

namespace CLI {
class App;
}

namespace cb {

struct SimFlags {
  std::string alpha, beta, gamma, bandwidth, reduce_bandwidth, params_file;
  std::string params_transport;  // which transport's global row of a fit.csv
  // --terms: names of terms (or their old letters; models/terms.hpp,
  // parse_term_set) from the --params calibration; "" = the alpha-beta-gamma
  // baseline.
  std::string terms;
  std::string overhead, intra_alpha, intra_beta, intra_bandwidth, skew, noise;
  std::string network_gap;  // --network-gap: seconds, "none", or "" (the --params file's)
  int ranks_per_node = 0;
  std::uint64_t seed = 1;
  bool rounds = false;
  // Signed: CLI11 wraps "-1" into an unsigned 2^64-1 (a window of every
  // step, gigabytes); resolve_sim_options refuses a negative value instead.
  long long window_steps = 0;
  bool stats = false;
  bool des = false;         // --sim-des: never the exact fast path
  double max_events = 2e8;  // --max-events: skip cases estimated above this
};

// Adds the flags to `cmd`; `prefix` names the transport in help texts ("sim: ").
void add_sim_flags(CLI::App& cmd, SimFlags& flags, const std::string& prefix);

// Only the model's source flags (--alpha --beta --gamma --bandwidth
// --reduce-bandwidth --params --params-transport --terms), for commands that
// price without simulating (predict). Same names, units and precedence as the
// simulator's.
void add_model_param_flags(CLI::App& cmd, SimFlags& flags, const std::string& prefix);

// The parameters the flags describe; throws UsageError (one line) for a bad
// value, a conflicting pair (--beta with --bandwidth, --gamma with
// --reduce-bandwidth) or an unreadable --params file.
sim::NetworkParams resolve_network(const SimFlags& flags);
// alpha, beta, gamma only (refinement flags ignored): NetworkParams defaults,
// then --params, then explicit flags.
sim::NetworkParams resolve_model_params(const SimFlags& flags);
sim::SimOptions resolve_sim_options(const SimFlags& flags);
// The network's gap on two levels (NetworkParams::network_gap_s): --network-gap
// (seconds, or "none": single port), else `from_params_s` (a two-level
// --params calibration's measured overhead; negative: none), at most
// `alpha_s`; -1 without --ranks-per-node. UsageError (one line) for a bad
// value, one above alpha, or --network-gap without --ranks-per-node.
double resolve_network_gap(const SimFlags& flags, double from_params_s, double alpha_s);

// --params FILE named again as an output (`out_flag` `output`, "-" never):
// the output would replace the model it is computed from (predict --params
// x --csv x once did). UsageError, one line.
void check_params_not_output(const SimFlags& flags, const std::string& output,
                             std::string_view out_flag);

// --terms: the calibrated terms to price schedules with (checked against
// --params: models::load_model_terms), or nullopt without --terms. A
// UsageError names a bad term, a missing --params or a term it lacks.
struct PricedTerms {
  models::ModelParams base;  // the parameters --params and the flags give
  models::ModelTerms terms;
  models::TermSet use;
  std::string file;          // --params
};
std::optional<PricedTerms> resolve_terms(const SimFlags& flags);
// "; steps priced with terms range+copy of FILE" for the describe line, or "".
std::string priced_note(const std::optional<PricedTerms>& priced);

// The --sim-stats line for one simulation named `what`: events, wall time,
// events/s end to end (schedule generation included) and of the engine alone,
// or that the exact fast path answered.
void print_sim_stats(std::FILE* out, const std::string& what, const sim::SimResult& res);

}  // namespace cb
