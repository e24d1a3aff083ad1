// `collbench map`: the crossover map at scale. For every (collective, ranks,
// size) cell it simulates every requested algorithm (transports/sim/, the same
// schedules the real transports run) and records which is fastest and by how
// much, for scripts/ to draw as a heat map.
//
//   collbench map --coll allreduce --ranks 2..16384 -b 8 -e 1G --csv map.csv
//
// --ranks: "A..B" = the powers of two from A to B plus, between neighbouring
// powers 2^k and 2^(k+1), the non-power 3*2^(k-1) (3, 6, 12, 24, ..., 12288),
// so power-of-two folds show up; or a list "2,3,100". -b/-e/-f/-i/-d/-o,
// --placement and --segment mean what they mean in `run` (one datatype, op and
// placement per map). Network flags as in `run --transport sim`.
//
// CSV (streamed to FILE.partial, flushed per cell, renamed to FILE when
// complete; an interrupted map keeps FILE.partial with every finished cell).
// One row per (collective, ranks, bytes, algorithm); columns:
//   collective, ranks, bytes (S as CSV.md defines it), count (elements, MPI
//   meaning), datatype, op (empty for allgather/alltoall), placement (out|in),
//   algorithm, time_s (simulated seconds; empty when skipped), events (message
//   events simulated), best_algorithm, best_time_s (the fastest of the cell),
//   runner_up, margin (time of the runner-up / best time - 1; empty when the
//   cell has one algorithm), alpha_s, beta_s_per_B, gamma_s_per_B, overhead_s,
//   ranks_per_node, model (async | rounds), skew_s, noise_s, seed,
//   note (why a row was skipped: its estimated events exceed --max-events, or
//   its window does not fit the simulator's memory limit).
// Skipped algorithms take no part in best_algorithm / margin of their cell.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

#include "algorithms/registry.hpp"
#include "harness/cli/commands.hpp"
#include "harness/sweep/interrupt.hpp"
#include "harness/sweep/plan.hpp"
#include "harness/report/reporter.hpp"
#include "transports/sim/cli_options.hpp"
#include "harness/cli/size_flags.hpp"
#include "harness/sweep/sizes.hpp"
#include "models/csv_text.hpp"

namespace cb {
namespace {

struct MapOptions {
  std::string colls = "allreduce";
  std::string algos = "all";
  std::string ranks = "2..1024";
  SizeFlags sizes{"8", "1G", 2, "0"};
  std::string datatype = "float";
  std::string op = "sum";
  std::string placement = "out";
  std::string segment = "0";
  std::string csv = "map.csv";
  double max_events = 2e8;
  bool quiet = false;
  SimFlags sim;
};

int parse_rank_count(const std::string& item, const std::string& text) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(item, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != item.size() || item.empty() || v < 1 || v > sim::kMaxRanks)
    throw UsageError(fmt::format("bad rank count '{}' in --ranks {} (accepted: integers 1..{}, a "
                                 "list, or A..B)", item, text, sim::kMaxRanks));
  return v;
}

std::vector<int> map_ranks(const std::string& text) {
  std::set<int> out;
  const std::size_t dots = text.find("..");
  if (dots != std::string::npos) {
    const int a = parse_rank_count(text.substr(0, dots), text);
    const int b = parse_rank_count(text.substr(dots + 2), text);
    if (a > b) throw UsageError(fmt::format("bad --ranks range '{}' (need A <= B)", text));
    for (long long pw = 1; pw <= b; pw *= 2) {
      if (pw >= a) out.insert(static_cast<int>(pw));
      if (pw >= 2 && pw * 3 / 2 >= a && pw * 3 / 2 <= b) out.insert(static_cast<int>(pw * 3 / 2));
    }
  } else {
    for (const std::string& item : split_list(text)) out.insert(parse_rank_count(item, text));
  }
  if (out.empty()) throw UsageError(fmt::format("--ranks {} selects no rank count", text));
  return {out.begin(), out.end()};
}

std::vector<const AlgorithmEntry*> map_algorithms(Collective coll, const std::string& text,
                                                  const std::vector<Collective>& colls) {
  std::vector<const AlgorithmEntry*> out;
  if (text == "all") {
    for (const AlgorithmEntry& e : algorithms_for(coll)) out.push_back(&e);
    return out;
  }
  for (const std::string& name : split_list(text)) {
    bool anywhere = false;
    for (Collective c : colls)
      for (const AlgorithmEntry& e : algorithms_for(c)) anywhere = anywhere || e.name == name;
    if (!anywhere) find_algorithm(coll, name);  // throws, listing what exists
    for (const AlgorithmEntry& e : algorithms_for(coll))
      if (e.name == name) out.push_back(&e);
  }
  return out;
}

// FILE.partial, flushed line by line, renamed to FILE by complete().
class MapCsv {
 public:
  explicit MapCsv(std::string path) : path_(std::move(path)), partial_(path_ + kPartialSuffix) {
    file_ = std::fopen(partial_.c_str(), "w");
    if (!file_) throw UsageError(fmt::format("cannot write --csv '{}': {}", partial_, std::strerror(errno)));
    write(
        "collective,ranks,bytes,count,datatype,op,placement,algorithm,time_s,events,"
        "best_algorithm,best_time_s,runner_up,margin,alpha_s,beta_s_per_B,gamma_s_per_B,"
        "overhead_s,ranks_per_node,model,skew_s,noise_s,seed,note\n");
  }
  ~MapCsv() {
    if (file_) std::fclose(file_);
  }
  void write(const std::string& line) {
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
      throw std::runtime_error(fmt::format("writing '{}' failed: {}", partial_, std::strerror(errno)));
  }
  void complete() {
    std::fclose(file_);
    file_ = nullptr;
    if (std::rename(partial_.c_str(), path_.c_str()) != 0)
      throw std::runtime_error(fmt::format("cannot rename '{}' to '{}': {}", partial_, path_, std::strerror(errno)));
  }
  const std::string& partial() const { return partial_; }

 private:
  std::string path_, partial_;
  std::FILE* file_ = nullptr;
};

struct CellResult {
  const AlgorithmEntry* algo = nullptr;
  std::optional<double> time_s;
  std::uint64_t events = 0;
  std::string note;
};

void run_map(const MapOptions& o) {
  const sim::NetworkParams net = resolve_network(o.sim);
  const sim::SimOptions sim_options = resolve_sim_options(o.sim);
  std::vector<Collective> colls;
  if (o.colls == "all") colls.assign(std::begin(kAllCollectives), std::end(kAllCollectives));
  else
    for (const std::string& name : split_list(o.colls)) colls.push_back(parse_collective(name));
  const std::vector<int> ranks = map_ranks(o.ranks);
  const DataType dtype = parse_datatype(o.datatype);
  const ReduceOp op = parse_reduce_op(o.op);
  if (o.placement != "in" && o.placement != "out")
    throw UsageError(fmt::format("unknown --placement '{}' (valid for map: in, out)", o.placement));
  const bool in_place = o.placement == "in";
  const std::vector<std::size_t> sizes = requested_sizes(o.sizes);
  const std::size_t segment = parse_bytes(o.segment, "--segment");
  if (!(o.max_events > 0))
    throw UsageError(fmt::format("bad --max-events {} (must be > 0)", o.max_events));
  std::vector<std::pair<Collective, std::vector<const AlgorithmEntry*>>> plan;
  for (Collective c : colls) {
    auto algos = map_algorithms(c, o.algos, colls);
    if (!algos.empty()) plan.emplace_back(c, std::move(algos));
  }
  if (plan.empty()) throw UsageError(fmt::format("--algo {} names no algorithm of --coll {}", o.algos, o.colls));

  MapCsv csv(o.csv);
  install_interrupt_handlers();
  const std::size_t cells = plan.size() * ranks.size() * sizes.size();
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t done = 0;
  if (!o.quiet) fmt::print(stderr, "map: {}\n", sim::describe(net));
  const std::string params = fmt::format(
      "{},{},{},{},{},{},{},{},{}", models::csv_number(net.alpha_s), models::csv_number(net.beta_s_per_B),
      models::csv_number(net.gamma_s_per_B), models::csv_number(net.overhead_s), net.ranks_per_node,
      net.round_synchronous ? "rounds" : "async", models::csv_number(net.skew_s),
      models::csv_number(net.noise_s), net.seed);
  for (const auto& [coll, algos] : plan) {
    fmt::print("# {} {} {} {}: best algorithm per (ranks, size), simulated; margin = runner-up / best - 1\n",
               to_string(coll), to_string(dtype), is_reducing(coll) ? to_string(op) : "",
               o.placement);
    fmt::print("{:>7} {:>12}  {:<10} {:>14}  {:<10} {:>8}\n", "ranks", "size", "best", "time(us)",
               "runner-up", "margin");
    for (int p : ranks) {
      std::size_t last_count = 0;
      for (std::size_t s : sizes) {
        ++done;
        if (interrupt_signal() != 0) {
          fmt::print(stderr, "collbench: map interrupted (signal {}); finished cells kept in {}\n",
                     interrupt_signal(), csv.partial());
          set_exit_status(128 + interrupt_signal());
          return;
        }
        const std::size_t count = count_for_bytes(coll, dtype, p, s);
        if (count == 0 || count == last_count) continue;
        last_count = count;
        const std::size_t bytes = bytes_for_count(coll, dtype, p, count);
        const CollParams params_c{coll, p, 0, count, dtype, op, in_place, segment};
        std::vector<CellResult> results;
        for (const AlgorithmEntry* e : algos) {
          CellResult r;
          r.algo = e;
          const double estimate = closed_form_cost(*e, params_c).alpha * p;
          if (estimate > o.max_events) {
            r.note = fmt::format("skipped: about {:.3g} message events > --max-events {:.3g}", estimate, o.max_events);
          } else {
            try {
              const sim::SimResult res = sim::simulate(*e, params_c, net, sim_options);
              r.time_s = res.time_s;
              r.events = res.messages;
              if (o.sim.stats)
                fmt::print(stderr, "sim: {}/{} p={} count={}: {} events in {:.3f} s ({:.3g} events/s)\n",
                           to_string(coll), e->name, p, count, res.messages, res.wall_s(), res.events_per_s());
            } catch (const UsageError& err) {  // the window memory limit
              r.note = fmt::format("skipped: {}", err.what());
            }
          }
          results.push_back(std::move(r));
        }
        const CellResult* best = nullptr;
        const CellResult* second = nullptr;
        for (const CellResult& r : results) {
          if (!r.time_s) continue;
          if (!best || *r.time_s < *best->time_s) {
            second = best;
            best = &r;
          } else if (!second || *r.time_s < *second->time_s) {
            second = &r;
          }
        }
        std::optional<double> margin;
        if (best && second && *best->time_s > 0) margin = *second->time_s / *best->time_s - 1;
        std::string lines;
        for (const CellResult& r : results) {
          lines += fmt::format(
              "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", to_string(coll), p, bytes, count,
              to_string(dtype), is_reducing(coll) ? to_string(op) : "", o.placement, r.algo->name,
              r.time_s ? models::csv_number(*r.time_s) : "", r.time_s ? std::to_string(r.events) : "",
              best ? std::string(best->algo->name) : "", best ? models::csv_number(*best->time_s) : "",
              second ? std::string(second->algo->name) : "", margin ? models::csv_number(*margin) : "",
              params, models::csv_escape(r.note));
        }
        csv.write(lines);
        fmt::print("{:>7} {:>12}  {:<10} {:>14.3f}  {:<10} {:>8}\n", p, format_bytes(bytes),
                   best ? best->algo->name : "-", best ? *best->time_s * 1e6 : 0.0,
                   second ? second->algo->name : "-",
                   margin ? fmt::format("{:.1f}%", *margin * 100) : "-");
        std::fflush(stdout);
        if (!o.quiet) {
          const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          fmt::print(stderr, "map: [{}/{}] {} p={} {} done, {:.1f} s elapsed, ETA {:.0f} s\n", done,
                     cells, to_string(coll), p, format_bytes(bytes), elapsed,
                     elapsed / static_cast<double>(done) * static_cast<double>(cells - done));
        }
      }
    }
  }
  csv.complete();
  if (!o.quiet) fmt::print(stderr, "map: wrote {}\n", o.csv);
}

}  // namespace

void add_map_command(CLI::App& app) {
  auto options = std::make_shared<MapOptions>();
  MapOptions& o = *options;
  CLI::App* cmd = app.add_subcommand(
      "map", "Simulated crossover map: every algorithm at every (ranks, size), best and margin, to CSV");
  cmd->add_option("--coll", o.colls, "Collectives: list or all")->capture_default_str();
  cmd->add_option("--algo", o.algos, "Algorithms: list or all")->capture_default_str();
  cmd->add_option("--ranks", o.ranks,
                  "Rank counts: A..B (powers of two from A to B plus 3*2^k between them) or a list")
      ->capture_default_str();
  add_size_flags(*cmd, o.sizes);
  cmd->add_option("-d,--datatype", o.datatype, "One datatype")->capture_default_str();
  cmd->add_option("-o,--op", o.op, "One reduction op")->capture_default_str();
  cmd->add_option("--placement", o.placement, "in or out")->capture_default_str();
  cmd->add_option("--segment", o.segment, "Pipelining segment in bytes (0 = algorithm default)")
      ->capture_default_str();
  cmd->add_option("--csv", o.csv, "CSV file to write (streamed via FILE.partial)")
      ->capture_default_str();
  cmd->add_option("--max-events", o.max_events,
                  "Skip (algorithm, ranks) cells estimated above this many message events "
                  "(closed-form rounds x ranks); they get a note instead of a time")
      ->capture_default_str();
  cmd->add_flag("--quiet", o.quiet, "No progress lines on stderr");
  add_sim_flags(*cmd, o.sim, "");
  cmd->callback([options] { run_map(*options); });
}

}  // namespace cb
