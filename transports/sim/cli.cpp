// --transport sim: the simulated network (transports/sim/) as an in-process
// transport of `collbench run`. All ranks of a case run inside this process,
// in virtual time, so --ranks goes up to sim::kMaxRanks without mpiexec; the
// rows are the same as real runs' (transport = sim) with alpha_s,
// beta_s_per_B and gamma_s_per_B filled.
//
// Samples: the model is deterministic, so a case is one sample (iterations =
// 1) unless --sim-skew or --sim-noise draw random delays; then each of -n
// samples (kRandomSamples when -n is 0) uses the next seed, and the time
// statistics describe the straggler distribution.
// Verification: only with --sim-verify (and -c 1): real bytes move along the
// simulated messages and every rank's output is checked against
// harness/verify's expected output, for cases whose buffers over all ranks
// fit kVerifyBytes; larger cases are left unchecked (#wrong empty), with a note.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <set>

#include "transports/contract/transport_spec.hpp"
#include "transports/sim/arrival_price.hpp"
#include "transports/sim/cli.hpp"
#include "transports/sim/cli_options.hpp"
#include "transports/contract/sizes.hpp"
#include "transports/reference/verify.hpp"
#include "transports/sim/simulator.hpp"
#include "models/schedule_model.hpp"

namespace cb {
namespace {

constexpr int kRandomSamples = 10;
constexpr std::size_t kVerifyBytes = std::size_t{1} << 30;

struct SimRunFlags {
  SimFlags sim;
  bool verify = false;
  sim::NetworkParams net;  // resolved by validate()
  std::optional<PricedTerms> priced;  // --terms, resolved by validate()
};
SimRunFlags& flags() {
  static SimRunFlags f;
  return f;
}

class SimMeasurer final : public Measurer {
 public:
  SimMeasurer(const sim::NetworkParams& net, const sim::SimOptions& options,
              const SimMeasurerOptions& flags)
      : net_(net), options_(options), verify_(flags.verify), stats_(flags.stats),
        max_events_(flags.max_events), priced_(flags.priced) {}

  Measurement measure(const Case& c, const SamplingPlan& plan, Group&) override {
    const AlgorithmEntry& algo = find_algorithm(c.coll, c.algorithm);
    const CollParams params{c.coll,     c.ranks,         0, c.count, c.dtype, c.op,
                            c.in_place, c.segment_bytes, c.ranks_per_node};
    Measurement m;
    m.alpha_s = net_.alpha_s;
    m.beta_s_per_B = net_.beta_s_per_B;
    m.gamma_s_per_B = net_.gamma_s_per_B;
    if (plan.arrival && plan.arrival->active()) {
      measure_arrival(c, algo, params, plan, m);
      return m;
    }
    if (priced_) {
      if (c.ranks > models::kMaxPricedRanks) {
        m.skipped = fmt::format("skipped: --terms prices every rank's schedule, up to {} ranks",
                                models::kMaxPricedRanks);
        note(c, m.skipped);
        return m;
      }
      m.times_s = {models::priced_seconds(models::features_for(algo, params), priced_->base,
                                          priced_->terms, priced_->use)};
      if (verify_ && plan.verify) m.wrong = check(c, algo, params, plan.seed);
      return m;
    }
    // Estimate first: a case the simulator cannot afford is skipped with a
    // note (row and stderr) instead of failing the sweep. The exact fast path
    // needs no events, so it is never skipped.
    const bool exact = options_.fast_path && sim::cost_is_exact(algo, params, net_);
    const double estimate = sim::estimated_events(algo, params);
    if (max_events_ > 0 && !exact && estimate > max_events_) {
      m.skipped = fmt::format("skipped: about {:.3g} message events > --max-events {:.3g}",
                              estimate, max_events_);
      note(c, m.skipped);
      return m;
    }
    try {
      simulate_samples(c, algo, params, plan, m);
    } catch (const sim::WindowTooLarge& err) {  // one step alone exceeds the memory limit
      if (max_events_ <= 0) throw;
      m.times_s.clear();
      m.skipped = fmt::format("skipped: {}", err.what());
      note(c, m.skipped);
      return m;
    }
    if (verify_ && plan.verify) m.wrong = check(c, algo, params, plan.seed);
    return m;
  }

 private:
  // Under --arrival: each draw of the pattern priced as predict prices it
  // (arrival_price.hpp), and the no-skew reference by the same pricing.
  void measure_arrival(const Case& c, const AlgorithmEntry& algo, const CollParams& params,
                       const SamplingPlan& plan, Measurement& m) {
    if (priced_ && c.ranks > models::kMaxPricedRanks) {
      m.skipped = fmt::format("skipped: --terms prices every rank's schedule, up to {} ranks",
                              models::kMaxPricedRanks);
      note(c, m.skipped);
      return;
    }
    const double estimate = sim::estimated_events(algo, params);
    if (!priced_ && max_events_ > 0 && estimate > max_events_) {
      m.skipped = fmt::format("skipped: about {:.3g} message events > --max-events {:.3g}",
                              estimate, max_events_);
      note(c, m.skipped);
      return;
    }
    PricedArrival a;
    try {
      a = price_arrival(algo, params, net_, options_, priced_, *plan.arrival,
                        arrival_draws(*plan.arrival, plan.iterations));
    } catch (const sim::WindowTooLarge& err) {
      if (max_events_ <= 0) throw;
      m.skipped = fmt::format("skipped: {}", err.what());
      note(c, m.skipped);
      return;
    }
    m.times_s = std::move(a.step_s);
    m.arrival = ArrivalSamples{plan.arrival->text(), std::move(a.after_last_s),
                               std::move(a.early_in_s), {a.noskew_s}};
    if (!priced_) m.events = a.events;
    if (verify_ && plan.verify) m.wrong = check(c, algo, params, plan.seed);
  }

  void simulate_samples(const Case& c, const AlgorithmEntry& algo, const CollParams& params,
                        const SamplingPlan& plan, Measurement& m) {
    const bool random = net_.skew_s > 0 || net_.noise_s > 0;
    const int samples = random ? (plan.iterations > 0 ? plan.iterations : kRandomSamples) : 1;
    for (int i = 0; i < samples; ++i) {
      sim::NetworkParams net = net_;
      net.seed = net_.seed + static_cast<std::uint64_t>(i);
      const sim::SimResult res = sim::simulate(algo, params, net, options_);
      m.times_s.push_back(res.time_s);
      m.events = res.messages;
      if (stats_)
        print_sim_stats(
            stderr, fmt::format("{}/{} p={} count={}", to_string(c.coll), c.algorithm, c.ranks, c.count),
            res);
    }
  }

  // Skips are said on stderr too, once per (collective, algorithm, ranks).
  void note(const Case& c, const std::string& why) {
    if (!noted_.insert(fmt::format("{}/{}/{}", to_string(c.coll), c.algorithm, c.ranks)).second) return;
    fmt::print(stderr, "collbench: note: sim: {}/{} p={} from {} on: {}\n", to_string(c.coll),
               c.algorithm, c.ranks, format_bytes(c.bytes()), why);
  }

  std::optional<std::uint64_t> check(const Case& c, const AlgorithmEntry& algo,
                                     const CollParams& params, std::uint64_t seed) {
    const std::size_t es = element_size(c.dtype);
    const std::size_t per_rank =
        (input_count(c.coll, c.ranks, c.count) + output_count(c.coll, c.ranks, c.count)) * es;
    if (per_rank * static_cast<std::size_t>(c.ranks) > kVerifyBytes) {
      if (!warned_)
        fmt::print(stderr, "collbench: note: --sim-verify skips cases whose buffers over all ranks "
                           "exceed {} MiB (from {}/{} p={} count={} on; #wrong left empty)\n",
                   kVerifyBytes >> 20, to_string(c.coll), c.algorithm, c.ranks, c.count);
      warned_ = true;
      return std::nullopt;
    }
    const VerifySpec spec{c.coll, c.dtype, c.op, c.ranks, c.count, seed, InputMode::exact};
    std::vector<std::vector<std::byte>> inputs;
    for (int r = 0; r < c.ranks; ++r) inputs.push_back(make_input(spec, r));
    const sim::DataRun run = sim::simulate_with_data(algo, params, net_, inputs, options_);
    const auto expected = expected_outputs(spec);
    std::uint64_t wrong = 0;
    for (int r = 0; r < c.ranks; ++r)
      wrong += count_wrong(spec, run.outputs[static_cast<std::size_t>(r)],
                           expected[static_cast<std::size_t>(r)]);
    return wrong;
  }

  sim::NetworkParams net_;
  sim::SimOptions options_;
  bool verify_, stats_;
  double max_events_;
  std::optional<PricedTerms> priced_;
  bool warned_ = false;
  std::set<std::string> noted_;
};

}  // namespace

std::unique_ptr<Measurer> make_sim_measurer(const sim::NetworkParams& net,
                                            const sim::SimOptions& options,
                                            const SimMeasurerOptions& flags) {
  return std::make_unique<SimMeasurer>(net, options, flags);
}

void add_sim_transport(std::vector<TransportSpec>& list) {
  TransportSpec t;
  t.name = "sim";
  t.summary = "simulated network, all ranks in virtual time in this process (no mpiexec): "
              "alpha-beta-gamma ports, --ranks up to 1048576";
  t.per_process = false;
  t.max_ranks = sim::kMaxRanks;
  t.default_ranks = 64;
  t.add_options = [](CLI::App& run) {
    add_sim_flags(run, flags().sim, "sim: ");
    run.add_flag("--sim-verify", flags().verify,
                 "sim: also move real bytes and check every rank's output (small p; off by default)");
  };
  t.validate = [](TransportSpec&) {
    flags().net = resolve_network(flags().sim);
    flags().priced = resolve_terms(flags().sim);
    resolve_sim_options(flags().sim);  // --sim-window, --max-events: refused before any work
  };
  // Rows carry alpha, beta, gamma; the refinements are stated here.
  t.notice = [] {
    return fmt::format("collbench: sim: {}{}", sim::describe(flags().net),
                       priced_note(flags().priced));
  };
  t.make_measurer = []() -> std::unique_ptr<Measurer> {
    return make_sim_measurer(flags().net, resolve_sim_options(flags().sim),
                             {flags().verify, flags().sim.stats, flags().sim.max_events,
                              flags().priced});
  };
  t.predict_wall_s = [](const Case& c, const SamplingPlan& plan) {
    const AlgorithmEntry& algo = find_algorithm(c.coll, c.algorithm);
    const CollParams params{c.coll,     c.ranks,         0, c.count, c.dtype, c.op,
                            c.in_place, c.segment_bytes, c.ranks_per_node};
    // --terms generates every rank's schedule, as the event simulation does.
    const bool fast = !flags().sim.des && !flags().priced;
    if (!flags().priced && !(fast && sim::cost_is_exact(algo, params, flags().net)) &&
        sim::estimated_events(algo, params) > flags().sim.max_events)
      return 1e-6;  // skipped
    const bool random = flags().net.skew_s > 0 || flags().net.noise_s > 0;
    const int samples = random ? (plan.iterations > 0 ? plan.iterations : kRandomSamples) : 1;
    return samples * sim::predicted_wall_s(algo, params, flags().net, fast);
  };
  list.push_back(std::move(t));
}

}  // namespace cb
