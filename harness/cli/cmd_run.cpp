// `collbench run`: the nccl-tests-style sweep over sizes, collectives,
// algorithms, datatypes, ops, placements and rank counts, on any transport.
// Flags keep nccl-tests' letters and meanings (-b -e -f -i -n -w -c -d -o);
// each transport adds its own flags (transports/contract/transport_spec.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/collective.hpp"
#include "algorithms/registry.hpp"
#include "harness/runtime/heap_reuse.hpp"
#include "harness/runtime/transports.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/size_flags.hpp"
#include "transports/contract/interrupt.hpp"
#include "harness/sweep/plan.hpp"
#include "harness/report/reporter.hpp"
#include "transports/contract/row.hpp"
#include "harness/runtime/load.hpp"
#include "harness/runtime/node_layout.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/runtime/world.hpp"
#include "models/io/output_file.hpp"
#include "models/io/output_lock.hpp"
#include "transports/watchdog.hpp"

namespace cb {
void set_timeout_option(double seconds) {
  if (!(seconds >= 0) || seconds > 7 * 86400.0)
    throw UsageError(fmt::format(
        "bad --timeout {} (seconds a single wait may last: 0 = no bound, up to 604800)",
        seconds));
  set_wait_timeout(seconds);
}

namespace {

// run's flags as typed: the options make_plan takes, and the text of the
// flags run_flags parses into them (the CLI boundary: nothing past it
// parses a size, a wait policy or a start method).
struct RunFlags {
  RunOptions options;
  SizeFlags sizes;
  std::string wait = "auto";
  std::string start = "barrier";
};

SizeSweep parse_size_flags(const SizeFlags& f) {
  SizeSweep s;
  s.bytes = requested_sizes(f);
  s.min_text = f.min_bytes;
  s.max_text = f.max_bytes;
  s.factor = parse_factor(f.factor);
  s.increment_text = f.increment;
  return s;
}

// Output options every rank can check alone, before anything else is said.
void check_output_options(const RunOptions& o) {
  if (o.resume && o.csv.empty())
    throw UsageError("--resume needs --csv FILE: the results file whose rows it keeps");
  if (o.resume && io::is_stdout(o.csv))
    throw UsageError("--resume needs a --csv file, not - (standard output keeps no rows)");
  if (io::is_stdout(o.csv) && io::is_stdout(o.json))
    throw UsageError("--csv - and --json - both ask for standard output: name a file for one");
  set_timeout_option(o.timeout_s);
}

// CPUs in an affinity list such as "0-3,6" (RankPlace::affinity).
int cpu_count(const std::string& list) {
  int n = 0;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string part = list.substr(at, end - at);
    const std::size_t dash = part.find('-');
    n += dash == std::string::npos
             ? 1
             : std::atoi(part.c_str() + dash + 1) - std::atoi(part.c_str()) + 1;
    at = end + 1;
  }
  return n;
}

// Unpinned ranks move between cores (and caches) mid-measurement; with a
// core for each rank that costs nothing to avoid, so say how. Rank 0's host
// only: the one whose cores this process can count.
std::string pinning_warning(const std::vector<RankPlace>& places, int ranks_on_node) {
  if (places.size() < 2) return {};
  int cores = 1;  // the host's cores, as the widest affinity there shows them
  for (const RankPlace& p : places)
    if (p.host == places.front().host) cores = std::max(cores, cpu_count(p.affinity));
  if (ranks_on_node > cores) return {};  // no spare core to pin to
  for (const RankPlace& p : places)
    if (p.host == places.front().host && cpu_count(p.affinity) > 1)
      return fmt::format(
          "collbench: warning: rank {} may run on cores {}: the ranks are not pinned, so they "
          "can migrate between cores while timed; launch with mpiexec -bind-to core -n {} ...",
          p.rank, p.affinity, places.size());
  return {};
}

int run(const RunOptions& options) {
  check_output_options(options);
  // Before MPI_Init: a Ctrl-C during start-up must be recorded, not kill a
  // rank by the signal (which makes mpiexec's status random).
  install_interrupt_handlers();
  // The world is needed before the plan: --ranks is checked against it.
  Group& w = world(options.wait);
  set_watchdog_rank(w.rank());
  const bool root = w.rank() == 0;
  // The node layout, for the hierarchical algorithms (collective: every rank
  // learns every rank's node).
  const NodeLayoutInfo runtime_layout = world_node_layout();
  RunOptions resolved = options;
  resolved.runtime_ranks_per_node = runtime_layout.ranks_per_node;
  resolved.runtime_layout = runtime_layout.describe();
  const Plan plan = make_plan(resolved, w.size(), w.ranks_on_node(), available_memory_bytes());
  // The simulator allocates and frees per-rank arrays every configuration;
  // the real transports' buffers are timed and keep glibc's defaults.
  if (!plan.transport->per_process) keep_freed_heap_memory();
  if (root)
    for (const std::string& note : plan.notes) fmt::print(stderr, "collbench: {}\n", note);
  SweepOutput out{options.csv, options.json, options.resume, options.quiet, "",
                  options.command_line};
  if (plan.transport->per_process && w.size() == 1)
    out.notice =
        "collbench: running as a single rank; launch more ranks with "
        "`mpiexec -n N collbench run ...`";
  if (root && plan.transport->notice)
    out.notice += (out.notice.empty() ? "" : "\n") + plan.transport->notice();

  SweepFormat format;
  format.load_resume = [](const std::string& csv) { return load_resume(csv); };
  format.files = [](const SweepOutput& out, const ResumeData& resume) {
    std::vector<std::unique_ptr<Reporter>> files;
    if (!out.csv.empty()) files.push_back(make_csv_reporter(out.csv, &resume));
    if (!out.json.empty()) files.push_back(make_json_reporter(out.json, &resume));
    return files;
  };
  format.console = [] { return make_console_reporter(stdout); };
  // The rank map of the header (collective: every rank takes part).
  std::vector<RankPlace> places;
  if (plan.transport->per_process) places = gather_rank_places();
  RunInfo info;
  if (root) {
    info.meta = collect_metadata();
    info.meta.places = std::move(places);
    // Computed times (the simulator) depend on the inputs and the build
    // only: no host, time or load is recorded with them, so the same inputs
    // give the same bytes (study.sh --refit regenerates the simulated sweep).
    if (!plan.transport->per_process) {
      info.meta.host.clear();
      info.meta.timestamp.clear();
      info.meta.load.reset();
    }
    const int largest = plan.blocks.empty() ? w.size() : plan.blocks.back().ranks;
    if (options.ranks_per_node > 0 && !plan.transport->per_process) {  // the simulated topology
      NodeLayoutInfo simulated = forced_layout(largest, options.ranks_per_node);
      simulated.forced = false;
      info.meta.layout = simulated.describe() + " (simulated, --ranks-per-node)";
    } else {
      info.meta.layout = options.ranks_per_node > 0
                             ? forced_layout(largest, options.ranks_per_node).describe()
                             : runtime_layout.describe();
    }
    // Computed times (the simulator) do not suffer from a busy machine.
    if (const std::string warning = load_warning(info.meta.load, w.ranks_on_node());
        plan.transport->per_process && !warning.empty())
      fmt::print(stderr, "{}\n", warning);
    if (const std::string warning = pinning_warning(info.meta.places, w.ranks_on_node());
        plan.transport->per_process && !warning.empty())
      fmt::print(stderr, "{}\n", warning);
    info.configuration = plan.to_json(options);
    info.out_of_place = plan.out_of_place;
    info.in_place = plan.in_place;
  }
  const std::unique_ptr<Measurer> measurer = make_measurer(*plan.transport, root);
  return run_sweep(plan, w, measurer.get(), out, format, std::move(info)).exit_status;
}

// The flags whose presence, not only their value, decides something, and
// the transports' own flags.
struct SeenFlags {
  CLI::Option* placement = nullptr;  // absent: one placement for sim
  CLI::Option* start = nullptr;      // absent with --arrival: window
  CLI::Option* csv = nullptr;        // given empty: refused
  CLI::Option* json = nullptr;
  // sim's flag; the other transports read it as a forced (emulated) node layout.
  CLI::Option* ranks_per_node = nullptr;
  // sim's model file, named again as --csv or --json, would be replaced by the
  // rows computed from it.
  CLI::Option* params = nullptr;
  // Which transport added which flag: a flag given with another transport
  // (--mem host with --transport mpi) would be silently ignored; refused.
  std::vector<std::pair<const CLI::Option*, std::string>> owned;
};

// What to measure and how often: nccl-tests' flags where it has one, then
// placements and rank counts.
void add_sweep_flags(CLI::App& cmd, RunFlags& flags, SeenFlags& seen) {
  RunOptions& o = flags.options;
  cmd.add_option("--transport", o.transport, "Transport: mpi, or another of `collbench list`")
      ->capture_default_str();
  cmd.add_option("--coll", o.colls,
                 fmt::format("Collectives: list of {}, or all", collective_names()))
      ->capture_default_str();
  cmd.add_option("--algo", o.algos,
                 "Algorithms: list (registry names and baselines such as mpi), or all")
      ->capture_default_str();
  add_size_flags(cmd, flags.sizes);
  cmd.add_option("-n,--iters", o.iterations,
                 "Timed iterations per configuration (0 = sample by --time-budget)")
      ->capture_default_str();
  CLI::Option* warmup = cmd.add_option("-w,--warmup_iters", o.warmup, "Untimed warm-up iterations")
                            ->capture_default_str();
  // OSU's -x: the same warm-up, remembered so that an OSU -i is refused.
  cmd.add_option_function<int>(
         "-x",
         [f = &flags](int v) {
           f->options.warmup = v;
           f->sizes.osu_warmup = true;
         },
         "Untimed warm-up iterations, as OSU's -x (same as -w)")
      ->excludes(warmup);
  // nccl-tests' -g (GPUs per thread): collbench runs one GPU per rank.
  cmd.add_option_function<std::string>(
      "-g,--ngpus",
      [](const std::string& v) {
        if (v != "1")
          throw UsageError(fmt::format(
              "-g {}: collbench drives one GPU per rank, and ranks come from the launcher: "
              "mpiexec -n N collbench run --transport nccl (or ipc)",
              v));
      },
      "nccl-tests' GPUs per thread: only 1 (one GPU per rank; ranks come from mpiexec -n)");
  cmd.add_option("-c,--check", o.check, "Verify results after timing (1) or not (0)")
      ->capture_default_str();
  cmd.add_option("--time-budget", o.time_budget_s,
                 "Seconds per configuration when -n is 0: sample until the median's 95% CI is "
                 "within 5% or the budget is spent")
      ->capture_default_str();
  cmd.add_option("-d,--datatype", o.datatypes,
                 "Datatypes: list (float, double, half, bf16, "
                 "int8 ... uint64, int16, uint16) or all")
      ->capture_default_str();
  cmd.add_option("-o,--op", o.ops,
                 "Reduction ops: list of sum, prod, min, max, avg, "
                 "land, lor, lxor, band, bor, bxor (integers only), or all (the first five)")
      ->capture_default_str();
  seen.placement =
      cmd.add_option("--placement", o.placement,
                     "in, out or both (default: both; out with --transport sim, whose model "
                     "times the two alike)");
  cmd.add_option("--ranks", o.ranks,
                 "Rank counts: list (2,4,8), all (2..world), pow2, or A..B (powers of two from A "
                 "to B); default: the world size");
}

// How each configuration is timed: waits, starts, arrival patterns, the mode
// probe, the order of configurations and the pipelining segment.
void add_timing_flags(CLI::App& cmd, RunFlags& flags, SeenFlags& seen) {
  RunOptions& o = flags.options;
  cmd.add_option("--wait", flags.wait,
                 "How ranks wait: spin, yield, sleep, or auto (spin unless "
                 "ranks outnumber cores or the load average exceeds them)")
      ->capture_default_str();
  seen.start =
      cmd.add_option("--start", flags.start,
                     "How each timed iteration starts: barrier (after a barrier, each rank timing "
                     "from its own exit) or window (at an agreed time on synchronized clocks; "
                     "the time is the max over ranks of finish - that start; iterations with a "
                     "rank late for its window are dropped and counted in the late column; "
                     "default window with --arrival) or back-to-back (a barrier per batch, then "
                     "iterations back to back as an application's loop runs them; sample = the "
                     "slowest rank's time per iteration)")
          ->capture_default_str();
  cmd.add_option("--arrival", o.arrival,
                 "Arrival pattern (docs/arrival.md): none, one-late:DELAY[:RANK] (default the "
                 "last rank), uniform:MAX (per iteration, drawn from --seed), list:D0,D1,... or "
                 "trace:FILE (iteration,rank,delay_us); durations such as 250us, 1ms. Each "
                 "rank's window start moves by its delay; the same configuration also runs "
                 "without the pattern for the ratio columns")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "Seed of --arrival uniform's draws")->capture_default_str();
  cmd.add_option("--arrival-log", o.arrival_log,
                 "With --arrival: each rank appends every sample's target and actual start "
                 "(CLOCK_MONOTONIC ns) to PREFIX.<rank>, to check where the pattern put them");
  cmd.add_option("--mode-probe", o.mode_probe,
                 "on: before each configuration, time a short 8 B and 256 KiB exchange on its "
                 "ranks (10-20 ms on one node) into the probe_small_us and probe_large_us "
                 "columns, which the model's term probe prices the row's mode with; off: leave "
                 "them empty (on a slow network the probe costs about 45 of its round trips)")
      ->capture_default_str();
  cmd.add_option("--order", o.order,
                 "How a rank count's configurations are ordered and timed: interleaved (every "
                 "algorithm of a size back to back, timed taking turns ~20 ms at a time, so a "
                 "drift of the machine's speed reaches them alike; holds all their buffers at "
                 "once), size (the same order, each timed alone) or algorithm (one "
                 "algorithm's sizes back to back, as a loop of nccl-tests runs)")
      ->capture_default_str();
  cmd.add_option("--segment", o.segment,
                 fmt::format("Pipelining segment in bytes for {} (0 = algorithm default)",
                             segmented_algorithm_names()))
      ->capture_default_str();
}

// Where rows go, the watchdog, and resuming.
void add_output_flags(CLI::App& cmd, RunOptions& o, SeenFlags& seen) {
  seen.csv = cmd.add_option(
      "--csv", o.csv,
      "Write tidy CSV rows to FILE (streamed via FILE.partial; - = standard output)");
  seen.json = cmd.add_option(
      "--json", o.json, "Write rows, configuration and metadata to FILE (- = standard output)");
  cmd.add_option("--timeout", o.timeout_s,
                 "Watchdog: seconds any single wait for a peer may last before every surviving "
                 "rank reports where it waits and the run ends, keeping finished rows (0 = off)")
      ->capture_default_str();
  cmd.add_flag("--quiet", o.quiet, "No progress lines on stderr");
  cmd.add_flag("--resume", o.resume,
               "Skip configurations the --csv file (or its .partial from an interrupted run) "
               "already holds; keep those rows and add the rest");
}

void add_transport_flags(CLI::App& cmd, SeenFlags& seen) {
  for (TransportSpec& t : transports()) {
    if (!t.add_options) continue;
    const std::size_t before = cmd.get_options().size();
    t.add_options(cmd);
    const auto all = cmd.get_options();
    for (std::size_t i = before; i < all.size(); ++i) seen.owned.emplace_back(all[i], t.name);
  }
  seen.ranks_per_node = cmd.get_option_no_throw("--ranks-per-node");
  seen.params = cmd.get_option_no_throw("--params");
}

// The parsed flags into the options make_plan takes, then the run.
int run_flags(RunFlags& flags, const SeenFlags& seen) {
  RunOptions& o = flags.options;
  for (const auto& [option, transport] : seen.owned)
    if (option->count() > 0 && o.transport != transport && option != seen.ranks_per_node)
      throw UsageError(
          fmt::format("{} is a flag of --transport {}; --transport {} ignores it "
                      "(drop it, or run with --transport {})",
                      option->get_name(), transport, o.transport, transport));
  if (seen.ranks_per_node != nullptr && seen.ranks_per_node->count() > 0)
    o.ranks_per_node = seen.ranks_per_node->as<int>();
  // `--csv "$UNSET"` is a mistake, not "no CSV".
  if (seen.csv->count() > 0 && o.csv.empty())
    throw UsageError("empty file name for --csv (give a file, or - for standard output)");
  if (seen.json->count() > 0 && o.json.empty())
    throw UsageError("empty file name for --json (give a file, or - for standard output)");
  if (seen.params != nullptr && seen.params->count() > 0)
    for (const auto& [flag, out] : {std::pair{"--csv", o.csv}, {"--json", o.json}})
      if (!out.empty() && io::same_output(out, seen.params->as<std::string>()))
        throw UsageError(
            fmt::format("{} {} is the --params file: writing it would replace the "
                        "model read from it (accepted: another file)",
                        flag, out));
  o.command_line = command_line();
  // The simulator's model gives in- and out-of-place the same time: one
  // placement unless asked, which halves a sim sweep.
  if (seen.placement->count() == 0 && o.transport == "sim") o.placement = "out";
  o.wait = parse_wait_policy(flags.wait);
  // A pattern places each rank's start on synchronized clocks: the window start.
  o.start = seen.start->count() == 0 && o.arrival != "none" ? StartMethod::window
                                                            : parse_start_method(flags.start);
  o.sizes = parse_size_flags(flags.sizes);
  return run(o);
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  auto seen = std::make_shared<SeenFlags>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Measure collectives: sweep sizes, algorithms, datatypes, ops and rank counts");
  add_sweep_flags(*cmd, *flags, *seen);
  add_timing_flags(*cmd, *flags, *seen);
  add_output_flags(*cmd, flags->options, *seen);
  add_transport_flags(*cmd, *seen);
  return {cmd, [flags, seen] { return run_flags(*flags, *seen); }};
}

}  // namespace cb
