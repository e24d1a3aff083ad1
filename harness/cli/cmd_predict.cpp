// `collbench predict --coll allreduce --ranks 1024 -b 8 -e 1G [-f 2]
// (--alpha A --beta B|--bandwidth BW --gamma G|--reduce-bandwidth BW |
//  --params FILE [--params-transport T])`: every algorithm's predicted
// time per size at any scale, the best one and the collective's lower bound,
// from the closed-form costs (models/predict.hpp). No ranks are started.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/collective.hpp"
#include "algorithms/hierarchical/compose.hpp"
#include "algorithms/registry.hpp"
#include "harness/cli/commands.hpp"
#include "harness/runtime/heap_reuse.hpp"
#include "harness/cli/size_flags.hpp"
#include "harness/sweep/plan.hpp"
#include "transports/contract/arrival.hpp"
#include "transports/contract/sizes.hpp"
#include "transports/contract/stats.hpp"
#include "models/calibration.hpp"
#include "models/csv_text.hpp"
#include "models/fit_run.hpp"
#include "models/memory_bound.hpp"
#include "models/predict.hpp"
#include "models/schedule_model.hpp"
#include "transports/sim/arrival_price.hpp"
#include "transports/sim/cli_options.hpp"
#include "transports/sim/net_params.hpp"

namespace cb {
namespace {

struct PredictOptions {
  std::string coll;
  int ranks = 0;
  SizeFlags sizes{"8", "1G", "2", "0", ""};
  std::string dtype = "float";
  std::string op = "sum";
  bool in_place = false;
  SimFlags model;  // the model's source flags, named and parsed as in map and run --transport sim
  std::string csv;
  std::string arrival = "none";  // --arrival (transports/contract/arrival.hpp)
  std::uint64_t seed = 1;        // --seed: draws of --arrival uniform
  std::string algos;             // --algo: names; empty = the flat ones (+ hierarchical with K)
};

// Under --arrival, per row and algorithm (SECONDS): the median time after the
// last arrival and the no-skew time, priced as the simulator prices them.
struct ArrivalColumns {
  std::vector<std::vector<double>> after_last_s, noskew_s;  // [row][algorithm]
};

// --ranks-per-node K: the intra-node level from a two-level --params
// calibration, each part overridden by --intra-alpha / --intra-beta
// (--intra-bandwidth); without K those flags are refused, as in the simulator.
void add_intra_level(const SimFlags& f, models::ModelParams& m) {
  const bool intra_flags = !f.intra_alpha.empty() || !f.intra_beta.empty() ||
                           !f.intra_bandwidth.empty();
  if (f.ranks_per_node < 0)
    throw UsageError(fmt::format("--ranks-per-node {} is not >= 1 (or 0: one level)",
                                 f.ranks_per_node));
  if (f.ranks_per_node == 0) {
    if (intra_flags)
      throw UsageError("--intra-alpha/--intra-beta/--intra-bandwidth need --ranks-per-node K (the "
                       "two-level model is off without it)");
    m.intra_alpha_s = m.intra_beta_s_per_B = 0;  // one level, whatever the file holds
    return;
  }
  if (!f.terms.empty())
    throw UsageError(fmt::format("--terms {} prices one level (its terms were measured on the "
                                 "network's pair) and does not combine with --ranks-per-node "
                                 "(accepted: either)",
                                 f.terms));
  if (!f.intra_beta.empty() && !f.intra_bandwidth.empty())
    throw UsageError("--intra-beta and --intra-bandwidth both give the intra-node wire cost "
                     "(accepted: one of them)");
  if (!f.params_file.empty())
    if (const std::optional<models::ModelParams> intra = models::load_intra_params(f.params_file)) {
      m.intra_alpha_s = intra->alpha_s;
      m.intra_beta_s_per_B = intra->beta_s_per_B;
    }
  if (!f.intra_alpha.empty()) m.intra_alpha_s = sim::parse_seconds(f.intra_alpha, "--intra-alpha");
  if (!f.intra_beta.empty())
    m.intra_beta_s_per_B = sim::parse_seconds_per_byte(f.intra_beta, "--intra-beta");
  if (!f.intra_bandwidth.empty())
    m.intra_beta_s_per_B = 1 / sim::parse_bandwidth(f.intra_bandwidth, "--intra-bandwidth");
  if (!m.two_level())
    throw UsageError(fmt::format(
        "--ranks-per-node {} prices two levels and needs the intra-node alpha and beta: a "
        "--params calibration on two levels, or --intra-alpha and --intra-beta (or "
        "--intra-bandwidth)",
        f.ranks_per_node));
}

models::ModelParams resolve_params(const PredictOptions& o) {
  const SimFlags& f = o.model;
  const bool wire = !f.beta.empty() || !f.bandwidth.empty();
  const bool reduce = !f.gamma.empty() || !f.reduce_bandwidth.empty();
  if (f.params_file.empty() && (f.alpha.empty() || !wire || !reduce))
    throw UsageError(
        "predict needs the model: --params FILE (from calibrate or fit) or all of --alpha, "
        "--beta (or --bandwidth) and --gamma (or --reduce-bandwidth)");
  const sim::NetworkParams net = resolve_model_params(f);
  models::ModelParams m;
  m.alpha_s = net.alpha_s;
  m.beta_s_per_B = net.beta_s_per_B;
  m.gamma_s_per_B = net.gamma_s_per_B;
  for (const auto& [flag, v] : {std::pair{"--alpha", m.alpha_s}, std::pair{"--beta", m.beta_s_per_B},
                                std::pair{"--gamma", m.gamma_s_per_B}})
    if (!std::isfinite(v) || v < 0)
      throw UsageError(fmt::format("{} gives {:g}, not a number >= 0", flag, v));
  add_intra_level(f, m);
  m.network_gap_s = resolve_network_gap(f, net.network_gap_s, m.alpha_s);
  return m;
}

// The scenario the flags name, checked.
models::Scenario resolve_scenario(const PredictOptions& o) {
  models::Scenario s;
  s.coll = parse_collective(o.coll);
  s.dtype = parse_datatype(o.dtype);
  s.op = parse_reduce_op(o.op);
  require_op_applies(s.op, s.dtype);
  s.in_place = o.in_place;
  if (o.ranks < 1) throw UsageError(fmt::format("--ranks {} is not >= 1", o.ranks));
  // Some closed forms walk every rank (tree shapes, folds): time and memory
  // grow with p (2^27 ranks took 17 s and 1 GB; 2^31 minutes). The
  // simulator's and map's limit bounds them to well under a second.
  if (o.ranks > sim::kMaxRanks)
    throw UsageError(fmt::format("--ranks {} is above {} (the limit of predict, map and the "
                                 "simulator)",
                                 o.ranks, sim::kMaxRanks));
  s.p = o.ranks;
  s.ranks_per_node = o.model.ranks_per_node;
  return s;
}

// --algo: the names given (hierarchical ones included; a layout one refuses
// is refused in one line, one it runs flat on gets run's note); without it
// every registered (flat) algorithm, and with --ranks-per-node every
// hierarchical one the layout runs as two levels too.
std::vector<AlgorithmEntry> predicted_algorithms(const PredictOptions& o,
                                                 const models::Scenario& s) {
  std::vector<AlgorithmEntry> out;
  CollParams layout = models::coll_params(s, 1);
  if (!o.algos.empty()) {
    for (const std::string& name : split_list(o.algos, "--algo")) {
      const AlgorithmEntry& e = find_algorithm(s.coll, name);
      // Throws the refusal of a layout it cannot run on; on one node (or one
      // rank per node) it is priced as the flat algorithm it becomes, and
      // says so as `run` does.
      if (const std::string note = hierarchy_note(e, layout); !note.empty())
        fmt::print(stderr, "collbench: {}\n", note);
      out.push_back(e);
    }
    return out;
  }
  const auto flat = algorithms_for(s.coll);
  out.assign(flat.begin(), flat.end());
  if (s.ranks_per_node == 0) return out;
  for (const std::string& name : all_composite_names(s.coll)) {
    const AlgorithmEntry& e = find_algorithm(s.coll, name);
    try {
      // A composition that degenerates to a flat algorithm on this layout
      // (one node, or one rank per node) duplicates a flat column: not
      // offered unasked either.
      if (!hierarchy_note(e, layout).empty()) continue;
    } catch (const UsageError&) {
      continue;  // e.g. hier2d on nodes of different sizes: not offered unasked
    }
    out.push_back(e);
  }
  return out;
}

// --terms as the CSVs spell it: the names of its terms (the flag also takes
// the old letters).
std::string terms_text(const PredictOptions& o) {
  return models::term_set_text(models::parse_term_set(o.model.terms, {}));
}

// With --terms, reprices `rows` from every rank's schedule with the
// calibrated terms (one reader, resolve_terms, shared with map and the
// simulator); without it, leaves the closed forms.
void apply_terms(const PredictOptions& o, const models::Scenario& s, const models::ModelParams& m,
                 std::span<const AlgorithmEntry> algos, std::vector<models::PredictedRow>& rows) {
  const std::optional<PricedTerms> priced = resolve_terms(o.model);
  if (!priced) return;
  if (s.p > models::kMaxPricedRanks)
    throw UsageError(fmt::format("--terms prices every rank's schedule: --ranks {} is above {} "
                                 "(use the alpha-beta-gamma closed forms without --terms)",
                                 s.p, models::kMaxPricedRanks));
  for (models::PredictedRow& r : rows) {
    for (std::size_t i = 0; i < algos.size(); ++i)
      r.seconds[i] = models::priced_seconds(models::features_for(algos[i], s, r.count), m,
                                            priced->terms, priced->use);
    r.best = static_cast<std::size_t>(
        std::min_element(r.seconds.begin(), r.seconds.end()) - r.seconds.begin());
  }
}

// With --arrival, reprices `rows` under the pattern (transports/sim/
// arrival_price.hpp, the pricing of map and run --transport sim): each time
// becomes the median step time, first arrival to last completion.
std::optional<ArrivalColumns> apply_arrival(const PredictOptions& o, const models::Scenario& s,
                                            std::span<const AlgorithmEntry> algos,
                                            std::vector<models::PredictedRow>& rows) {
  const ArrivalPattern pattern = ArrivalPattern::parse(o.arrival, o.seed);
  if (!pattern.active()) return std::nullopt;
  if (s.p > models::kMaxPricedRanks)
    throw UsageError(fmt::format("--arrival prices every rank's clock: --ranks {} is above {}",
                                 s.p, models::kMaxPricedRanks));
  pattern.check_ranks(s.p);
  const std::optional<PricedTerms> priced = resolve_terms(o.model);
  const sim::NetworkParams net = resolve_network(o.model);
  const sim::SimOptions options = resolve_sim_options(o.model);
  const int draws = arrival_draws(pattern, 0);
  ArrivalColumns cols;
  for (models::PredictedRow& r : rows) {
    cols.after_last_s.emplace_back();
    cols.noskew_s.emplace_back();
    for (std::size_t i = 0; i < algos.size(); ++i) {
      const PricedArrival a = price_arrival(algos[i], models::coll_params(s, r.count), net,
                                            options, priced, pattern, draws);
      r.seconds[i] = summarize(a.step_s).median;
      cols.after_last_s.back().push_back(summarize(a.after_last_s).median);
      cols.noskew_s.back().push_back(a.noskew_s);
    }
    r.best = static_cast<std::size_t>(
        std::min_element(r.seconds.begin(), r.seconds.end()) - r.seconds.begin());
  }
  return cols;
}

// The header lines: scenario, parameters, model and units.
void print_header(const PredictOptions& o, const models::Scenario& s,
                  const models::ModelParams& m) {
  fmt::print("# predicted {} at p = {}, {}{}{}; alpha {:.4g} s, beta {:.4g} s/B ({:.3g} GB/s), "
             "gamma {:.4g} s/B ({:.3g} GB/s)\n",
             to_string(s.coll), s.p, to_string(s.dtype),
             is_reducing(s.coll) ? fmt::format(" {}", to_string(s.op)) : std::string(),
             s.in_place ? ", in place" : "", m.alpha_s, m.beta_s_per_B,
             m.beta_s_per_B > 0 ? 1e-9 / m.beta_s_per_B : INFINITY, m.gamma_s_per_B,
             m.gamma_s_per_B > 0 ? 1e-9 / m.gamma_s_per_B : INFINITY);
  if (s.ranks_per_node > 0)
    fmt::print(
        "# two levels: {} ranks per node ({} nodes); between the ranks of a node alpha "
        "{:.4g} s, beta {:.4g} s/B ({:.3g} GB/s), across nodes the alpha and beta above{}; "
        "each message priced at the level it crosses (models/two_level.hpp)\n",
        s.ranks_per_node, (s.p + s.ranks_per_node - 1) / s.ranks_per_node, m.intra_alpha_s,
        m.intra_beta_s_per_B, 1e-9 / m.intra_beta_s_per_B,
        m.network_gap_s >= 0
            ? fmt::format(" and gap {:.4g} s (a rank's network messages of one step "
                          "overlap their alpha)",
                          m.network_gap_s)
            : std::string(", no gap (one message after another)"));
  fmt::print("# model: {}\n", o.model.terms.empty()
                                 ? std::string("alpha-beta-gamma closed forms")
                                 : "schedule-priced with terms " + terms_text(o));
  if (o.arrival != "none")
    fmt::print("# arrival {}: each time is first arrival to last completion (median of the "
               "pattern's draws; docs/arrival.md), priced with each rank's clock starting at its "
               "arrival ({}); the CSV adds the time after the last arrival and the no-skew time\n",
               o.arrival,
               o.model.terms.empty() ? "the simulator's discrete-event model"
                                     : "the terms' per-rank clocks");
  fmt::print("# times in us (6 significant digits); size = S as in nccl-tests (bytes); bound = "
             "the collective's lower bound (alpha-beta-gamma); best/bound = how far the best "
             "algorithm is from it\n");
}

// The table: a row per size, a column per algorithm, then best and bound.
void print_rows(std::span<const AlgorithmEntry> algos,
                const std::vector<models::PredictedRow>& rows) {
  std::size_t width = 10;
  for (const AlgorithmEntry& a : algos) width = std::max(width, a.name.size() + 1);
  fmt::print("{:>12} {:>12}", "size(B)", "count");
  for (const AlgorithmEntry& a : algos) fmt::print(" {:>{}}", a.name, width);
  fmt::print(" {:>{}} {:>12} {:>10}\n", "best", width, "bound", "best/bound");
  for (const models::PredictedRow& r : rows) {
    fmt::print("{:>12} {:>12}", r.bytes, r.count);
    for (double t : r.seconds) fmt::print(" {:>{}.6g}", t * 1e6, width);
    const double best = r.seconds[r.best];
    fmt::print(" {:>{}} {:>12.6g} {:>10.3f}\n", algos[r.best].name, width, r.lower_bound_s * 1e6,
               r.lower_bound_s > 0 ? best / r.lower_bound_s : 1.0);
  }
}

// The most messages one rank sends over the whole collective, from every
// rank's schedule; empty above kMaxPricedRanks, where generating them all
// would cost more than the rest of predict (the closed forms do not count
// messages per rank).
std::string messages_cell(const AlgorithmEntry& algo, const models::Scenario& s,
                          std::uint64_t count) {
  if (s.p > models::kMaxPricedRanks) return "";
  const models::ScheduleFeatures f = models::features_for(algo, s, count);
  std::vector<double> sent(static_cast<std::size_t>(s.p), 0);
  for (const auto& step : f.steps)
    for (std::size_t r = 0; r < step.size() && r < sent.size(); ++r) sent[r] += step[r].sends;
  return fmt::format("{:.0f}", sent.empty() ? 0 : *std::max_element(sent.begin(), sent.end()));
}

// The counts the model prices, independent of alpha, beta, gamma
// (harness/report/CSV.md, "Predict CSV"): rounds, messages, bytes sent and
// bytes reduced of one algorithm at one count.
std::string count_cells(const AlgorithmEntry& algo, const models::Scenario& s,
                        std::uint64_t count) {
  const Cost c = models::model_cost(algo, s, count);
  return fmt::format("{:.6g},{},{:.6g},{:.6g}", c.alpha, messages_cell(algo, s, count), c.beta,
                     c.gamma);
}

// The memory-traffic bound's cells (models/memory_bound.hpp): the bytes read
// and written along the schedule's critical path, and their time at `memory_Bps` (empty
// without a bandwidth); all empty above kMaxPricedRanks, as messages_cell.
std::string memory_cells(const AlgorithmEntry& algo, const models::Scenario& s,
                         std::uint64_t count, double memory_Bps) {
  if (s.p > models::kMaxPricedRanks) return ",,";
  const models::MemoryTraffic t = models::critical_path_traffic(algo, s, count);
  const double bound = models::memory_bound_s(t, memory_Bps);
  return fmt::format("{:.6g},{:.6g},{}", t.read_B, t.written_B,
                     std::isnan(bound) ? std::string() : fmt::format("{:.6g}", bound * 1e6));
}

// The memory bandwidth of --params when it is a calibration with a copy
// figure (BYTES per second), else 0: a fit.csv has none.
double params_memory_Bps(const PredictOptions& o) {
  if (o.model.params_file.empty()) return 0;
  return models::memory_Bps_of_copy(models::copy_GBps_of(o.model.params_file));
}

// One row per (size, algorithm), like the results CSV, so the simulator's
// rows can be joined on (collective, algorithm, ranks, bytes).
void write_csv(const PredictOptions& o, const models::Scenario& s,
               std::span<const AlgorithmEntry> algos,
               const std::vector<models::PredictedRow>& rows,
               const std::optional<ArrivalColumns>& arrival) {
  std::string text =
      "collective,algorithm,datatype,op,placement,ranks,bytes,count,predicted_us,best,"
      "lower_bound_us,model,arrival,after_last_us,noskew_us,rounds,messages,bytes_sent,"
      "bytes_reduced,ranks_per_node,memory_read_B,memory_written_B,memory_bound_us\n";
  const double memory_Bps = params_memory_Bps(o);
  const std::string model = o.model.terms.empty() ? "abg" : "terms:" + terms_text(o);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const models::PredictedRow& r = rows[k];
    for (std::size_t i = 0; i < algos.size(); ++i) {
      text += fmt::format("{},{},{},{},{},{},{},{},{:.6g},{},{:.6g},{}", to_string(s.coll),
                          algos[i].name, to_string(s.dtype),
                          is_reducing(s.coll) ? std::string(to_string(s.op)) : std::string(),
                          s.in_place ? "in" : "out", s.p, r.bytes, r.count, r.seconds[i] * 1e6,
                          i == r.best ? 1 : 0, r.lower_bound_s * 1e6, model);
      text += arrival ? fmt::format(",{},{:.6g},{:.6g}", models::csv_escape(o.arrival),
                                    arrival->after_last_s[k][i] * 1e6,
                                    arrival->noskew_s[k][i] * 1e6)
                      : std::string(",,,");
      text += fmt::format(",{},{},{}\n", count_cells(algos[i], s, r.count),
                          s.ranks_per_node > 0 ? std::to_string(s.ranks_per_node) : std::string(),
                          memory_cells(algos[i], s, r.count, memory_Bps));
    }
  }
  const std::filesystem::path out(o.csv);
  const std::string dir = out.has_parent_path() ? out.parent_path().string() : ".";
  models::write_files_atomically(dir, {{out.filename().string(), text}});
}

// Phases: scenario and model from the flags, closed-form table, --terms
// repricing, then print and the optional CSV.
void predict(const PredictOptions& o) {
  keep_freed_heap_memory();
  check_params_not_output(o.model, o.csv, "--csv");
  const models::Scenario s = resolve_scenario(o);
  const models::ModelParams m = resolve_params(o);
  std::vector<std::uint64_t> sizes;
  for (std::size_t b : requested_sizes(o.sizes)) sizes.push_back(b);
  const std::vector<AlgorithmEntry> algos = predicted_algorithms(o, s);
  if (algos.empty()) throw UsageError(fmt::format("no algorithm is registered for {}", o.coll));
  std::vector<models::PredictedRow> rows = models::predict_table(s, algos, sizes, m);
  apply_terms(o, s, m, algos, rows);
  const std::optional<ArrivalColumns> arrival = apply_arrival(o, s, algos, rows);
  print_header(o, s, m);
  print_rows(algos, rows);
  if (!o.csv.empty()) write_csv(o, s, algos, rows, arrival);
}

}  // namespace

Command add_predict_command(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "Print every algorithm's predicted time per size at any rank count, the best one and "
      "the lower bound, from alpha, beta, gamma");
  cmd->add_option("--coll", o->coll, fmt::format("collective: {}", collective_names()))
      ->required();
  cmd->add_option("--ranks", o->ranks, "rank count p (any, e.g. 16384)")->required();
  add_size_flags(*cmd, o->sizes);
  cmd->add_option("-d,--datatype", o->dtype, "datatype")->capture_default_str();
  cmd->add_option("-o,--op", o->op, "reduction op")->capture_default_str();
  cmd->add_flag("--in-place", o->in_place, "predict the in-place variant");
  add_model_param_flags(*cmd, o->model, "");
  cmd->add_option("--algo", o->algos,
                  "algorithms, ',' separated, hierarchical ones included (hier:INNER/OUTER, "
                  "hier2d:...; `collbench list`); default: every registered one, and with "
                  "--ranks-per-node every hierarchical one the layout runs");
  cmd->add_option("--ranks-per-node", o->model.ranks_per_node,
                  "two levels: K consecutive ranks share a node; every message is priced at the "
                  "level it crosses (needs --params from a two-level calibrate, or --intra-alpha "
                  "and --intra-beta); default 0: one level");
  cmd->add_option("--intra-alpha", o->model.intra_alpha,
                  "with --ranks-per-node: intra-node seconds per message (overrides --params)");
  cmd->add_option("--intra-beta", o->model.intra_beta,
                  "with --ranks-per-node: intra-node seconds per byte (overrides --params)");
  cmd->add_option("--network-gap", o->model.network_gap,
                  "with --ranks-per-node: the network's LogGP gap g per inter-node message after "
                  "the first of a step, e.g. 30us, or none (single port); default: a two-level "
                  "--params calibration's measured overhead");
  cmd->add_option("--intra-bandwidth", o->model.intra_bandwidth,
                  "with --ranks-per-node: intra-node bandwidth instead of --intra-beta, e.g. "
                  "50GB/s");
  cmd->add_option("--arrival", o->arrival,
                  "arrival pattern (as in run; docs/arrival.md): price each rank's clock from its "
                  "arrival; times become first arrival to last completion")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of --arrival uniform's draws")->capture_default_str();
  cmd->add_option("--csv", o->csv,
                  "also write the predictions as CSV (one row per size and algorithm, 6 "
                  "significant digits), atomically");
  return {cmd, [o] {
            predict(*o);
            return 0;
          }};
}

}  // namespace cb
