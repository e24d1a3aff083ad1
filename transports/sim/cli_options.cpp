#include "transports/sim/cli_options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <initializer_list>

#include "models/calibration.hpp"
#include "models/io/output_lock.hpp"
#include "models/schedule_model.hpp"

namespace cb {

namespace {

// A text flag of the table below: its name, where it is stored and its help.
struct TextFlag {
  const char* name;
  std::string* value;
  std::string help;
};

void add_text_flags(CLI::App& cmd, const std::string& prefix,
                    std::initializer_list<TextFlag> flags) {
  for (const TextFlag& f : flags) cmd.add_option(f.name, *f.value, prefix + f.help);
}

// A cost given either as seconds per byte or as a bandwidth: both is an error.
void either(const std::string& cost, const char* cost_flag, const std::string& bandwidth,
            const char* bandwidth_flag, const char* what) {
  if (!cost.empty() && !bandwidth.empty())
    throw UsageError(fmt::format("{} {} and {} {} both set {} (give one)", cost_flag, cost,
                                 bandwidth_flag, bandwidth, what));
}

// Sets `s_per_B` from whichever of the pair was given (either() checked that
// at most one was).
void per_byte(const std::string& cost, const char* cost_flag, const std::string& bandwidth,
              const char* bandwidth_flag, double& s_per_B) {
  if (!cost.empty()) s_per_B = sim::parse_seconds_per_byte(cost, cost_flag);
  if (!bandwidth.empty()) s_per_B = 1 / sim::parse_bandwidth(bandwidth, bandwidth_flag);
}

}  // namespace

void add_model_param_flags(CLI::App& cmd, SimFlags& f, const std::string& prefix) {
  const sim::NetworkParams d;
  add_text_flags(cmd, prefix, {
      {"--alpha", &f.alpha,
       fmt::format("seconds per message, SI or with a unit: 3.7e-6, 3.7us, 250ns (default {:g}s)",
                   d.alpha_s)},
      {"--beta", &f.beta,
       fmt::format("seconds per byte on the wire: 4.35e-10 or 0.435ns (default {:g} = {:g} GB/s)",
                   d.beta_s_per_B, 1e-9 / d.beta_s_per_B)},
      {"--gamma", &f.gamma,
       fmt::format("seconds per reduced byte (default {:g} = {:g} GB/s)", d.gamma_s_per_B,
                   1e-9 / d.gamma_s_per_B)},
      {"--bandwidth", &f.bandwidth,
       "wire bandwidth instead of --beta: 2.3GB/s, 800MB/s, 100Gbit/s (beta = 1/bw)"},
      {"--reduce-bandwidth", &f.reduce_bandwidth,
       "reduction bandwidth instead of --gamma: 11GB/s (gamma = 1/bw)"},
      {"--params", &f.params_file,
       "alpha, beta, gamma from a `collbench calibrate` file or a `collbench fit` fit.csv (its "
       "scope=global row); explicit flags override it"},
      {"--params-transport", &f.params_transport,
       "with a fit.csv holding several transports' global fits: which one (mpi, ipc-host, ...)"},
      {"--terms", &f.terms,
       fmt::format("price each schedule step with the calibrated model's terms, names of {} "
                   "separated by ',' or '+' (the old letters still read; docs/model.md; needs "
                   "--params CALIBRATION, ranks <= 1024); default: alpha-beta-gamma only",
                   models::term_set_text(models::ablation_levels().back()))},
  });
}

void add_sim_flags(CLI::App& cmd, SimFlags& f, const std::string& prefix) {
  const sim::NetworkParams d;
  add_model_param_flags(cmd, f, prefix);
  cmd.add_option("--overhead", f.overhead,
                 prefix + "LogGP CPU overhead o per message at each end, e.g. 300ns (default 0: off)");
  cmd.add_option("--ranks-per-node", f.ranks_per_node,
                 prefix + "two-level topology: K consecutive ranks share a node and talk with "
                          "--intra-alpha/--intra-beta (default 0: one flat network)");
  add_text_flags(
      cmd, prefix,
      {
          {"--intra-alpha", &f.intra_alpha,
           fmt::format("intra-node seconds per message (default {:g}s)", d.intra_alpha_s)},
          {"--intra-beta", &f.intra_beta,
           fmt::format("intra-node seconds per byte (default {:g} = {:g} GB/s)",
                       d.intra_beta_s_per_B, 1e-9 / d.intra_beta_s_per_B)},
          {"--intra-bandwidth", &f.intra_bandwidth,
           "intra-node bandwidth instead of --intra-beta, e.g. 50GB/s"},
          {"--network-gap", &f.network_gap,
           "with --ranks-per-node: the network's LogGP gap g, what each inter-node message after "
           "the first of a step adds (they overlap their alpha), e.g. 30us, or none (each pays "
           "alpha, one after another); default: a two-level --params calibration's measured "
           "overhead"},
          {"--sim-skew", &f.skew,
           "stragglers: each rank enters at a uniform time in [0, SKEW), e.g. 20us (default 0)"},
          {"--sim-noise", &f.noise,
           "noise: after each step a rank idles an exponential time of this mean, e.g. 1us "
           "(default 0)"},
      });
  cmd.add_option("--sim-seed", f.seed, prefix + "seed of --sim-skew/--sim-noise draws")
      ->capture_default_str();
  cmd.add_flag("--sim-rounds", f.rounds,
               prefix + "round-synchronous model (a free barrier after every step: reproduces the "
                        "per-step cost sum); default: asynchronous");
  cmd.add_option("--sim-window", f.window_steps,
                 prefix + "steps simulated per window (0 = auto: about 2Mi rank-steps, bounding memory)")
      ->capture_default_str();
  cmd.add_flag("--sim-stats", f.stats,
               prefix + "print events, wall time and events/s (end to end and engine only) of "
                        "every simulation on stderr");
  cmd.add_flag("--sim-des", f.des,
               prefix + "always run the discrete-event simulation, even where the closed-form "
                        "cost is provably the same time (the exact fast path)");
  cmd.add_option("--max-events", f.max_events,
                 prefix + "skip cases estimated above this many message events (closed-form "
                          "rounds x ranks): their rows get a note instead of a time")
      ->capture_default_str();
}

void print_sim_stats(std::FILE* out, const std::string& what, const sim::SimResult& res) {
  if (res.from_cost) {
    fmt::print(out, "sim: {}: exact fast path (closed-form cost, no events) in {:.3g} s\n", what,
               res.wall_s());
    return;
  }
  fmt::print(out,
             "sim: {}: {} events in {:.3f} s = {:.3g} events/s end to end (schedule generation "
             "{:.3f} s), engine {:.3f} s = {:.3g} events/s, {} windows\n",
             what, res.messages, res.wall_s(), res.events_per_s(), res.build_wall_s,
             res.engine_wall_s, res.engine_events_per_s(), res.windows);
}

sim::NetworkParams resolve_model_params(const SimFlags& f) {
  sim::NetworkParams net;
  // Without --params it would choose nothing, in silence.
  if (f.params_file.empty() && !f.params_transport.empty())
    throw UsageError(fmt::format("--params-transport {} chooses a row of --params FILE (accepted "
                                 "only with --params)",
                                 f.params_transport));
  if (!f.params_file.empty()) {
    std::string source;
    const models::ModelParams m = models::load_model_params(
        f.params_file,
        f.params_transport.empty() ? std::nullopt : std::optional<std::string>(f.params_transport),
        &source);
    // A calibration file holds one transport: naming another was ignored.
    if (!f.params_transport.empty() && !source.empty() && source != f.params_transport)
      throw UsageError(fmt::format("--params-transport {}: {} holds transport {} only (accepted: "
                                   "{}, or no --params-transport)",
                                   f.params_transport, f.params_file, source, source));
    net.alpha_s = m.alpha_s;
    net.beta_s_per_B = m.beta_s_per_B;
    net.gamma_s_per_B = m.gamma_s_per_B;
    net.network_gap_s = m.network_gap_s;  // a two-level calibration's; kept with a topology only
  }
  either(f.beta, "--beta", f.bandwidth, "--bandwidth", "the wire cost");
  either(f.gamma, "--gamma", f.reduce_bandwidth, "--reduce-bandwidth", "the reduction cost");
  either(f.intra_beta, "--intra-beta", f.intra_bandwidth, "--intra-bandwidth",
         "the intra-node wire cost");
  if (!f.alpha.empty()) net.alpha_s = sim::parse_seconds(f.alpha, "--alpha");
  per_byte(f.beta, "--beta", f.bandwidth, "--bandwidth", net.beta_s_per_B);
  per_byte(f.gamma, "--gamma", f.reduce_bandwidth, "--reduce-bandwidth", net.gamma_s_per_B);
  return net;
}

double resolve_network_gap(const SimFlags& f, double from_params_s, double alpha_s) {
  if (f.ranks_per_node == 0) {
    if (!f.network_gap.empty())
      throw UsageError(
          fmt::format("--network-gap {} needs --ranks-per-node K (the gap is the "
                      "network level's of two levels)",
                      f.network_gap));
    return -1;
  }
  // --alpha can lower the file's alpha below the gap it was loaded with.
  if (f.network_gap.empty()) return models::network_gap_within_alpha(from_params_s, alpha_s);
  if (f.network_gap == "none") return -1;
  const double g = sim::parse_seconds(f.network_gap, "--network-gap");
  if (g > alpha_s)
    throw UsageError(
        fmt::format("--network-gap {} is above the network's alpha {:g} s (accepted: "
                    "0 to alpha, or none)",
                    f.network_gap, alpha_s));
  return g;
}

sim::NetworkParams resolve_network(const SimFlags& f) {
  sim::NetworkParams net = resolve_model_params(f);
  if (!f.overhead.empty()) net.overhead_s = sim::parse_seconds(f.overhead, "--overhead");
  net.ranks_per_node = f.ranks_per_node;
  net.network_gap_s = resolve_network_gap(f, net.network_gap_s, net.alpha_s);
  // A calibration on two levels prices the intra-node messages with its
  // intra-node ping-pong (the flags below still override it).
  if (f.ranks_per_node > 0 && !f.params_file.empty())
    if (const std::optional<models::ModelParams> intra = models::load_intra_params(f.params_file)) {
      net.intra_alpha_s = intra->alpha_s;
      net.intra_beta_s_per_B = intra->beta_s_per_B;
    }
  if (f.ranks_per_node == 0 &&
      !(f.intra_alpha.empty() && f.intra_beta.empty() && f.intra_bandwidth.empty()))
    throw UsageError("--intra-alpha/--intra-beta/--intra-bandwidth need --ranks-per-node K (the "
                     "two-level topology is off without it)");
  if (!f.intra_alpha.empty()) net.intra_alpha_s = sim::parse_seconds(f.intra_alpha, "--intra-alpha");
  per_byte(f.intra_beta, "--intra-beta", f.intra_bandwidth, "--intra-bandwidth",
           net.intra_beta_s_per_B);
  if (!f.skew.empty()) net.skew_s = sim::parse_seconds(f.skew, "--sim-skew");
  if (!f.noise.empty()) net.noise_s = sim::parse_seconds(f.noise, "--sim-noise");
  net.seed = f.seed;
  net.round_synchronous = f.rounds;
  sim::validate(net);
  return net;
}

void check_params_not_output(const SimFlags& f, const std::string& output,
                             std::string_view out_flag) {
  if (f.params_file.empty() || output.empty() || !io::same_output(output, f.params_file)) return;
  throw UsageError(fmt::format("{} {} is the --params file {}: writing it would replace the model "
                               "read from it (accepted: another file)",
                               out_flag, output, f.params_file));
}

std::optional<PricedTerms> resolve_terms(const SimFlags& f) {
  if (f.terms.empty()) return std::nullopt;
  if (f.params_file.empty())
    throw UsageError(fmt::format("--terms {} needs --params FILE: a calibration file that measured "
                                 "them",
                                 f.terms));
  // The terms price whole steps (models/schedule_model.hpp); the engine's
  // refinements price messages one by one, and mixing the two would count o,
  // waits and topology twice or not at all.
  for (const auto& [flag, set] :
       {std::pair{"--overhead", !f.overhead.empty()}, std::pair{"--sim-skew", !f.skew.empty()},
        std::pair{"--sim-noise", !f.noise.empty()},
        std::pair{"--ranks-per-node", f.ranks_per_node != 0}, std::pair{"--sim-rounds", f.rounds},
        std::pair{"--sim-des", f.des}})
    if (set)
      throw UsageError(fmt::format("--terms {} prices each step with the calibrated terms and does "
                                   "not combine with {} (accepted with --terms: --params, "
                                   "--params-transport, --alpha/--beta/--gamma overrides)",
                                   f.terms, flag));
  PricedTerms p;
  p.use = models::parse_term_set(f.terms, {});
  p.terms = models::load_model_terms(f.params_file, p.use);
  const sim::NetworkParams net = resolve_model_params(f);
  p.base = {net.alpha_s, net.beta_s_per_B, net.gamma_s_per_B};
  p.file = f.params_file;
  return p;
}

std::string priced_note(const std::optional<PricedTerms>& priced) {
  if (!priced) return "";
  return fmt::format("; steps priced with terms {} of {} (models/schedule_model.hpp), not "
                     "simulated message by message",
                     models::term_set_text(priced->use), priced->file);
}

sim::SimOptions resolve_sim_options(const SimFlags& f) {
  sim::SimOptions o;
  if (f.window_steps < 0)
    throw UsageError(fmt::format("bad --sim-window {} (accepted: steps per window, 0 = auto, "
                                 "or a positive count)",
                                 f.window_steps));
  o.window_steps = static_cast<std::uint64_t>(f.window_steps);
  o.fast_path = !f.des;
  if (!(f.max_events > 0))
    throw UsageError(fmt::format("bad --max-events {} (must be > 0)", f.max_events));
  return o;
}

}  // namespace cb
