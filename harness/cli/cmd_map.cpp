// `collbench map`: the crossover map at scale. For every (collective, ranks,
// size) cell it simulates every requested algorithm (transports/sim/, the same
// schedules the real transports run) and records which is fastest and by how
// much, for scripts/ to draw as a heat map.
//
//   collbench map --coll allreduce --ranks 2..16384 -b 8 -e 1G --csv map.csv
//
// --ranks: "A..B" = A, B and every power of two and 3*2^k between them (3, 6,
// 12, ..., 12288), so power-of-two folds show up; or a list "2,3,100". The
// same parser and grid as `run --ranks` (parse_ranks in plan.hpp). -b/-e/-f/-i/-d/-o,
// --placement and --segment mean what they mean in `run` (one datatype, op and
// placement per map). Network flags as in `run --transport sim`.
//
// The map runs on `run`'s sweep pipeline (sweep/sweep.hpp): its cases are
// the simulator's (transport sim), ordered cell by cell, and its reporters
// (report/map.hpp) write a cell's rows together once all of them are in.
// The CSV is streamed to FILE.partial a cell at a time and renamed to FILE
// when complete; --resume continues an interrupted map. Its columns are
// documented with the results CSV's, in harness/report/CSV.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <set>

#include "algorithms/hierarchical/compose.hpp"
#include "algorithms/registry.hpp"
#include "harness/cli/commands.hpp"
#include "harness/runtime/heap_reuse.hpp"
#include "transports/contract/arrival.hpp"
#include "transports/contract/interrupt.hpp"
#include "harness/sweep/plan.hpp"
#include "harness/runtime/transports.hpp"
#include "harness/report/map.hpp"
#include "harness/runtime/group.hpp"
#include "harness/sweep/sweep.hpp"
#include "transports/sim/cli.hpp"
#include "harness/cli/size_flags.hpp"
#include "transports/contract/sizes.hpp"
#include "models/csv_text.hpp"

namespace cb {
namespace {

struct MapOptions {
  std::string colls = "allreduce";
  std::string algos = "all";
  std::string ranks = "2..1024";
  SizeFlags sizes{"8", "1G", "2", "0", ""};
  std::string datatype = "float";
  std::string op = "sum";
  std::string placement = "out";
  std::string segment = "0";
  std::string csv = "map.csv";
  bool quiet = false;
  bool resume = false;
  SimFlags sim;
  std::string arrival = "none";  // --arrival (transports/contract/arrival.hpp)
  std::uint64_t seed = 1;        // --seed: draws of --arrival uniform
};

std::vector<int> map_ranks(const std::string& text) {
  // The parser and grid of `run --ranks`; only the bound differs.
  if (text.empty() || text == "all" || text == "pow2")
    throw UsageError(fmt::format("map needs explicit rank counts: --ranks A..B or a list (got "
                                 "'{}'; 'all' and 'pow2' count up to a launch's size, which a map "
                                 "does not have)", text));
  return parse_ranks(text, sim::kMaxRanks, "the simulator's limit");
}

std::vector<const AlgorithmEntry*> map_algorithms(Collective coll, const std::string& text,
                                                  const std::vector<Collective>& colls) {
  std::vector<const AlgorithmEntry*> out;
  if (text == "all") {
    for (const AlgorithmEntry& e : algorithms_for(coll)) out.push_back(&e);
    return out;
  }
  for (const std::string& name : split_list(text, "--algo")) {
    if (is_composite_name(name)) {  // hier:INNER/OUTER, where the collective has it
      try {
        out.push_back(&find_algorithm(coll, name));
      } catch (const UsageError&) {
        if (colls.size() == 1) throw;
      }
      continue;
    }
    bool anywhere = false;
    for (Collective c : colls)
      for (const AlgorithmEntry& e : algorithms_for(c)) anywhere = anywhere || e.name == name;
    if (!anywhere) find_algorithm(coll, name);  // throws, listing what exists
    for (const AlgorithmEntry& e : algorithms_for(coll))
      if (e.name == name) out.push_back(&e);
  }
  return out;
}

std::vector<Collective> map_collectives(const std::string& text) {
  std::vector<Collective> colls;
  if (text == "all") return {std::begin(kAllCollectives), std::end(kAllCollectives)};
  for (const std::string& name : split_list(text, "--coll")) colls.push_back(parse_collective(name));
  return colls;
}

// Cases cell by cell: for each collective and rank count one block, sizes in
// order, every algorithm of a size next to each other.
Plan map_plan(const MapOptions& o) {
  Plan plan;
  plan.transport = &find_transport("sim");
  plan.transport_label = "sim";
  plan.sampling.iterations = 1;  // one simulation per case, as the map's time
  plan.sampling.verify = false;
  if (o.placement != "in" && o.placement != "out")
    throw UsageError(fmt::format("unknown --placement '{}' (valid for map: in, out)", o.placement));
  const bool in_place = o.placement == "in";
  plan.in_place = in_place;
  plan.out_of_place = !in_place;
  const std::vector<Collective> colls = map_collectives(o.colls);
  const std::vector<int> ranks = map_ranks(o.ranks);
  const DataType dtype = parse_datatype(o.datatype);
  const ReduceOp op = parse_reduce_op(o.op);
  require_op_applies(op, dtype);
  const std::vector<std::size_t> sizes = requested_sizes(o.sizes);
  const std::size_t segment = parse_bytes(o.segment, "--segment");
  for (Collective coll : colls) {
    const auto algos = map_algorithms(coll, o.algos, colls);
    if (algos.empty()) continue;
    for (int p : ranks) {
      RankBlock block;
      block.ranks = p;
      // Refuses layouts a hierarchical one cannot run on, and notes, as
      // `run` does, where one runs as a flat algorithm (one node, or one
      // rank per node).
      for (const AlgorithmEntry* e : algos) {
        CollParams layout;
        layout.coll = coll;
        layout.p = p;
        layout.ranks_per_node = o.sim.ranks_per_node;
        if (std::string note = hierarchy_note(*e, layout); !note.empty())
          plan.notes.push_back(std::move(note));
      }
      std::size_t last_count = 0;
      for (std::size_t s : sizes) {
        const std::size_t count = count_for_bytes(coll, dtype, p, s);
        if (count == 0 || count == last_count) continue;
        last_count = count;
        for (const AlgorithmEntry* e : algos)
          block.cases.push_back(
              {plan.transport_label, coll, std::string(e->name), dtype, op, in_place, p, count,
               segment, o.sim.ranks_per_node});
      }
      if (!block.cases.empty()) plan.blocks.push_back(std::move(block));
    }
  }
  if (plan.blocks.empty())
    throw UsageError(fmt::format("--algo {} names no algorithm of --coll {}", o.algos, o.colls));
  auto pattern = std::make_shared<ArrivalPattern>(ArrivalPattern::parse(o.arrival, o.seed));
  if (pattern->active()) {
    for (int p : ranks) pattern->check_ranks(p);
    // A varying pattern takes kArrivalDraws draws, as predict does.
    if (pattern->varies()) plan.sampling.iterations = 0;
    plan.sampling.arrival = std::move(pattern);
  }
  check_simulated_steps(plan, o.segment, available_memory_bytes());
  return plan;
}

// The network cells every row repeats (alpha_s .. seed).
std::string network_cells(const sim::NetworkParams& net, const std::optional<PricedTerms>& priced) {
  return fmt::format(
      "{},{},{},{},{},{},{},{},{}", models::csv_number(net.alpha_s),
      models::csv_number(net.beta_s_per_B), models::csv_number(net.gamma_s_per_B),
      models::csv_number(net.overhead_s), net.ranks_per_node,
      priced                  ? "terms:" + models::term_set_text(priced->use)
      : net.round_synchronous ? "rounds"
                              : "async",
      models::csv_number(net.skew_s),
      models::csv_number(net.noise_s), net.seed);
}

int run_map(const MapOptions& o) {
  keep_freed_heap_memory();  // thousands of cells allocate and free alike
  check_params_not_output(o.sim, o.csv, "--csv");
  const sim::NetworkParams net = resolve_network(o.sim);
  const sim::SimOptions sim_options = resolve_sim_options(o.sim);
  const Plan plan = map_plan(o);
  install_interrupt_handlers();
  const std::optional<PricedTerms> priced = resolve_terms(o.sim);
  for (const std::string& note : plan.notes) fmt::print(stderr, "collbench: {}\n", note);
  // Said once the outputs are open (SweepOutput::notice): never before a refusal.
  const std::string notice =
      o.quiet ? "" : fmt::format("map: {}{}", sim::describe(net), priced_note(priced));

  SweepFormat format;
  format.load_resume = [](const std::string& csv) {
    return load_resume(csv, map_columns(), map_row_key);
  };
  format.files = [&net, &priced](const SweepOutput& out, const ResumeData& resume) {
    std::vector<std::unique_ptr<Reporter>> files;
    files.push_back(make_map_csv_reporter(out.csv, resume, network_cells(net, priced)));
    return files;
  };
  format.console = [] { return make_map_console_reporter(stdout); };
  const std::unique_ptr<Measurer> measurer =
      make_sim_measurer(net, sim_options, {false, o.sim.stats, o.sim.max_events, priced});
  const std::unique_ptr<Group> self = make_self_group();
  RunInfo info;
  info.in_place = plan.in_place;
  info.out_of_place = plan.out_of_place;
  const SweepOutput out{o.csv, "", o.resume, o.quiet, notice, command_line()};
  const SweepResult result = run_sweep(plan, *self, measurer.get(), out, format, info);
  if (result.outcome.signal == 0 && !o.quiet) fmt::print(stderr, "map: wrote {}\n", o.csv);
  return result.exit_status;
}

}  // namespace

Command add_map_command(CLI::App& app) {
  auto options = std::make_shared<MapOptions>();
  MapOptions& o = *options;
  CLI::App* cmd = app.add_subcommand(
      "map", "Simulated crossover map: every algorithm at every (ranks, size), best and margin, to CSV");
  cmd->add_option("--coll", o.colls, "Collectives: list or all")->capture_default_str();
  cmd->add_option("--algo", o.algos, "Algorithms: list or all")->capture_default_str();
  cmd->add_option("--ranks", o.ranks,
                  "Rank counts: A..B (A, B and every power of two and 3*2^k between them, as in "
                  "run) or a list")
      ->capture_default_str();
  add_size_flags(*cmd, o.sizes);
  cmd->add_option("-d,--datatype", o.datatype, "One datatype")->capture_default_str();
  cmd->add_option("-o,--op", o.op, "One reduction op")->capture_default_str();
  cmd->add_option("--placement", o.placement, "in or out")->capture_default_str();
  cmd->add_option("--segment", o.segment,
                  fmt::format("Pipelining segment in bytes for {} (0 = algorithm default)",
                              segmented_algorithm_names()))
      ->capture_default_str();
  CLI::Option* csv =
      cmd->add_option("--csv", o.csv, "CSV file to write (streamed via FILE.partial)")
          ->capture_default_str();
  cmd->add_flag("--quiet", o.quiet, "No progress lines on stderr");
  cmd->add_flag("--resume", o.resume,
                "Skip the cells the --csv file (or its .partial from an interrupted map) already "
                "holds; keep those rows and add the rest");
  add_sim_flags(*cmd, o.sim, "");
  cmd->add_option("--arrival", o.arrival,
                  "Arrival pattern (as in run; docs/arrival.md): time_s becomes first arrival to "
                  "last completion, priced as predict --arrival prices it")
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed of --arrival uniform's draws")->capture_default_str();
  return {cmd, [options, csv] {
            // As `run` refuses it: resuming into the default name by accident
            // would mix two maps' rows.
            if (options->resume && csv->count() == 0)
              throw UsageError("--resume needs --csv FILE: the map file whose rows it keeps");
            return run_map(*options);
          }};
}

}  // namespace cb
