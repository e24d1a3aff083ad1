#include "harness/sweep/plan.hpp"
#include "harness/runtime/transports.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "algorithms/hierarchical/compose.hpp"
#include "algorithms/registry.hpp"
#include "transports/contract/row.hpp"
#include "transports/contract/arrival.hpp"
#include "transports/contract/interrupt.hpp"
#include "transports/contract/sizes.hpp"

namespace cb {

std::vector<std::string> split_list(const std::string& text, std::string_view flag) {
  if (text.empty() || text.front() == ',' || text.back() == ',' ||
      text.find(",,") != std::string::npos)
    throw UsageError(fmt::format("bad {} '{}': an empty item between commas (accepted: names "
                                 "separated by single commas, or 'all')",
                                 flag, text));
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  return out;
}

namespace {

int parse_int(const std::string& text, const std::string& what) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(
      fmt::format("bad rank count '{}' in --ranks {} (expected an integer)", text, what));
}

}  // namespace

std::vector<int> parse_ranks(const std::string& text, int max, const std::string& max_what) {
  const std::string accepted = "a list such as 2,4,8, 'all', 'pow2' or a range A..B";
  std::vector<int> out;
  if (text.empty()) {
    out.push_back(max);
  } else if (text == "all") {
    for (int p = std::min(2, max); p <= max; ++p) out.push_back(p);
  } else if (text == "pow2") {
    for (int p = 1; p <= max; p *= 2) out.push_back(p);
  } else if (const auto dots = text.find(".."); dots != std::string::npos) {
    const int a = parse_int(text.substr(0, dots), text);
    const int b = parse_int(text.substr(dots + 2), text);
    if (a < 1 || b < a)
      throw UsageError(
          fmt::format("bad --ranks range '{}' (need 1 <= A <= B; accepted: {})", text, accepted));
    // A, B, and between them every power of two and every 3*2^k: the
    // non-powers show the folds that power-of-two algorithms pay for. The
    // same grid in run and map.
    out.push_back(a);
    out.push_back(b);
    for (long long pw = 2; pw <= b; pw *= 2) {
      if (pw > a) out.push_back(static_cast<int>(pw));
      if (pw * 3 / 2 > a && pw * 3 / 2 < b) out.push_back(static_cast<int>(pw * 3 / 2));
    }
  } else {
    // An empty item ("1,,1", "4,") is a typo, not a rank count to skip.
    if (text.front() == ',' || text.back() == ',' || text.find(",,") != std::string::npos)
      throw UsageError(
          fmt::format("bad --ranks '{}': an empty item between commas (accepted: {})", text,
                      accepted));
    for (const std::string& item : split_list(text, "--ranks")) out.push_back(parse_int(item, text));
    if (out.empty())
      throw UsageError(fmt::format("bad --ranks '{}' (accepted: {})", text, accepted));
  }
  for (int p : out) {
    if (p < 1) throw UsageError(fmt::format("bad rank count {} in --ranks (must be >= 1)", p));
    if (p > max)
      throw UsageError(fmt::format("rank count {} in --ranks exceeds {} (at most {}{})", p,
                                   max_what, max,
                                   max_what.find("process") != std::string::npos
                                       ? fmt::format("; launch more with mpiexec -n {}", p)
                                       : ""));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::size_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

namespace {
// What one schedule step costs a rank in memory besides the data: the step
// itself (sends, receives, local ops) and a transport's plan of it. A tiny
// --segment turns a large message into millions of steps.
// Measured: ~640 B per step per rank for ring over MPI at 16 B segments.
constexpr std::size_t kBytesPerStep = 1024;
// Step bookkeeping beyond this and beyond the data itself means the segment
// is too small to be a meaningful pipelining study.
constexpr std::size_t kMaxStepBytes = std::size_t{1} << 30;
// The simulator's (and map's) memory per step of a rank's schedule: the
// closed-form tally keeps a few numbers per round (measured: 21 B per round
// for tree at p = 4, 16 Mi rounds in 336 MB), with a margin of 3.
constexpr double kSimBytesPerStep = 64;
}  // namespace

RankMemory estimate_rank_memory(const Case& c, bool baseline) {
  const std::size_t elem = element_size(c.dtype);
  const std::size_t in = input_count(c.coll, c.ranks, c.count);
  const std::size_t out = output_count(c.coll, c.ranks, c.count);
  // Verification keeps the input it wrote, the output it read and the expected output.
  const std::size_t verify = in + 2 * out;
  if (baseline) return {(in + out + verify) * elem, 0};
  const CollParams params{c.coll,  c.ranks, 0, c.count, c.dtype, c.op, c.in_place,
                          c.segment_bytes, c.ranks_per_node};
  // An empty step window declares the scratch buffers without building the
  // steps (a pipelined schedule of a huge message has very many).
  const Schedule s = make_schedule(find_algorithm(c.coll, c.algorithm), params, 0, 0);
  std::size_t total = c.in_place ? in_place_layout(c.coll, c.ranks, 0, c.count).total : in + out;
  for (std::size_t n : s.scratch_counts) total += n;
  // Staging for reduce-receives: at most one input's worth per step.
  const std::size_t staging = is_reducing(c.coll) ? in : 0;
  return {(total + staging + verify) * elem, s.total_steps * kBytesPerStep};
}

namespace {

// Two names for one thing (float,fp32) make one entry: rows must have unique keys.
template <class T>
void add_once(std::vector<T>& list, T value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

std::vector<Collective> resolve_collectives(const std::string& text) {
  if (text == "all") return {std::begin(kAllCollectives), std::end(kAllCollectives)};
  std::vector<Collective> out;
  for (const std::string& name : split_list(text, "--coll")) add_once(out, parse_collective(name));
  if (out.empty()) throw UsageError("empty --coll (give a list of collectives or 'all')");
  return out;
}

std::vector<DataType> resolve_datatypes(const std::string& text) {
  if (text == "all") return {std::begin(kAllDataTypes), std::end(kAllDataTypes)};
  std::vector<DataType> out;
  for (const std::string& name : split_list(text, "-d")) add_once(out, parse_datatype(name));
  if (out.empty()) throw UsageError("empty -d (give a datatype, a list or 'all')");
  return out;
}

std::vector<ReduceOp> resolve_ops(const std::string& text) {
  if (text == "all") return {std::begin(kAllReduceOps), std::end(kAllReduceOps)};
  std::vector<ReduceOp> out;
  for (const std::string& name : split_list(text, "-o")) add_once(out, parse_reduce_op(name));
  if (out.empty()) throw UsageError("empty -o (give an op, a list or 'all')");
  return out;
}

// The algorithms to run per collective. A named algorithm must be defined
// for every collective named explicitly; with --coll all it runs where it is
// defined and must be defined somewhere.
std::map<Collective, std::vector<std::string>> resolve_algorithms(
    const std::string& text, const std::string& coll_text, const std::vector<Collective>& colls,
    const TransportSpec& transport) {
  std::map<Collective, std::vector<std::string>> out;
  const bool all_colls = coll_text == "all";
  const auto is_own_baseline = [&](const std::string& n) {
    return std::find(transport.baselines.begin(), transport.baselines.end(), n) !=
           transport.baselines.end();
  };
  if (text == "all") {
    for (Collective c : colls) {
      for (const AlgorithmEntry& e : algorithms_for(c)) out[c].emplace_back(e.name);
      for (std::string_view b : transport.baselines) out[c].emplace_back(b);
    }
    return out;
  }
  const auto names = split_list(text, "--algo");
  if (names.empty()) throw UsageError("empty --algo (give a list of algorithms or 'all')");
  for (const std::string& name : names) {
    if (is_own_baseline(name)) {
      for (Collective c : colls) out[c].push_back(name);
      continue;
    }
    if (is_composite_name(name)) {  // hier:INNER/OUTER: defined where both parts are
      std::optional<UsageError> why;
      bool somewhere = false;
      for (Collective c : colls) {
        try {
          find_algorithm(c, name);
          out[c].push_back(name);
          somewhere = true;
        } catch (const UsageError& e) {
          if (!all_colls) throw;
          why = e;
        }
      }
      if (!somewhere && why) throw *why;
      continue;
    }
    if (is_baseline_name(name)) {
      std::string own;
      for (std::string_view b : transport.baselines)
        own += fmt::format("{}{}", own.empty() ? "" : ", ", b);
      throw UsageError(fmt::format(
          "algorithm '{}' is a library baseline of another transport, not of --transport {} "
          "(its baselines: {})",
          name, transport.name, own.empty() ? "none" : own));
    }
    bool somewhere = false;
    for (Collective c : colls) {
      const auto table = algorithms_for(c);
      const bool defined = std::any_of(table.begin(), table.end(),
                                       [&](const AlgorithmEntry& e) { return e.name == name; });
      if (defined) {
        out[c].push_back(name);
        somewhere = true;
      } else if (!all_colls) {
        find_algorithm(c, name);  // throws the registry's message naming the valid ones
      }
    }
    if (!somewhere) {
      std::string valid;
      for (std::string_view n : all_algorithm_names())
        valid += fmt::format("{}{}", valid.empty() ? "" : ", ", n);
      throw UsageError(fmt::format("unknown algorithm '{}' (valid: {})", name, valid));
    }
  }
  return out;
}

}  // namespace

std::size_t Plan::total_cases() const {
  std::size_t n = 0;
  for (const RankBlock& b : blocks) n += b.cases.size();
  return n;
}

std::size_t Plan::cases_in(const std::unordered_set<std::string>& keys) const {
  std::size_t n = 0;
  for (const RankBlock& b : blocks)
    for (const Case& c : b.cases) n += keys.count(case_key(c));
  return n;
}

nlohmann::json Plan::to_json(const RunOptions& o) const {
  nlohmann::json j;
  j["command_line"] = o.command_line;
  j["transport"] = transport_label;
  j["collectives"] = o.colls;
  j["algorithms"] = o.algos;
  j["min_bytes"] = o.sizes.min_text;
  j["max_bytes"] = o.sizes.max_text;
  j["factor"] = o.sizes.factor;
  j["increment"] = o.sizes.increment_text;
  j["datatypes"] = o.datatypes;
  j["ops"] = o.ops;
  j["placement"] = o.placement;
  j["ranks"] = nlohmann::json::array();
  for (const RankBlock& b : blocks) j["ranks"].push_back(b.ranks);
  j["wait"] = std::string(to_string(wait));
  j["start"] = std::string(to_string(sampling.start));
  j["segment"] = o.segment;
  j["warmup"] = sampling.warmup;
  j["iterations"] = sampling.iterations;
  j["time_budget_s"] =
      sampling.iterations > 0 ? nlohmann::json(nullptr) : nlohmann::json(sampling.budget_s);
  j["ci_rel"] = sampling.ci_rel;
  j["min_iterations"] = sampling.min_iterations;
  j["max_iterations"] = sampling.max_iterations;
  j["verify"] = sampling.verify;
  j["mode_probe"] = sampling.mode_probe;
  j["order"] = std::string(to_string(order));
  j["arrival"] = sampling.arrival ? sampling.arrival->text() : std::string("none");
  if (sampling.arrival && sampling.arrival->kind() == ArrivalPattern::Kind::uniform)
    j["seed"] = o.seed;
  j["cases"] = total_cases();
  return j;
}

namespace {

// Resolve: the sampling flags, checked against their accepted ranges.
SamplingPlan resolve_sampling(const RunOptions& o) {
  // Upper bounds keep every count an int and every sample vector allocatable.
  constexpr int kMaxIterations = 10'000'000;
  constexpr double kMaxBudget_s = 86400;
  if (o.iterations < 0 || o.iterations > kMaxIterations)
    throw UsageError(fmt::format("bad -n {} (accepted: 1 to {}, or 0 for --time-budget)",
                                 o.iterations, kMaxIterations));
  if (o.warmup < 0 || o.warmup > kMaxIterations)
    throw UsageError(fmt::format("bad -w {} (accepted: 0 to {})", o.warmup, kMaxIterations));
  if (o.check != 0 && o.check != 1)
    throw UsageError(fmt::format("bad -c {} (must be 0 or 1)", o.check));
  // !(x > 0) also refuses NaN; inf fails the upper bound.
  if (!(o.time_budget_s > 0) || !(o.time_budget_s <= kMaxBudget_s))
    throw UsageError(fmt::format("bad --time-budget {} (accepted: seconds > 0, at most {})",
                                 o.time_budget_s, kMaxBudget_s));
  SamplingPlan sampling;
  sampling.warmup = o.warmup;
  sampling.iterations = o.iterations;
  sampling.budget_s = o.time_budget_s;
  sampling.verify = o.check == 1;
  return sampling;
}

// Resolve: --placement into the plan's two switches.
void resolve_placement(const std::string& placement, Plan& plan) {
  if (placement == "both") {
    plan.out_of_place = plan.in_place = true;
  } else if (placement == "in" || placement == "out") {
    plan.in_place = placement == "in";
    plan.out_of_place = !plan.in_place;
  } else {
    throw UsageError(fmt::format("unknown --placement '{}' (valid: in, out, both)", placement));
  }
}

// Resolve: the rank counts, bounded by the launch (per-process transports)
// or by what the transport supports.
std::vector<int> resolve_ranks(const RunOptions& o, const TransportSpec& t, int world_size) {
  const int max_ranks = t.per_process ? world_size : t.max_ranks;
  const std::string max_what = t.per_process
                                   ? fmt::format("the {} processes of this launch", world_size)
                                   : fmt::format("what transport {} supports", t.name);
  const std::string ranks_text = o.ranks.empty() && !t.per_process && t.default_ranks > 0
                                     ? std::to_string(t.default_ranks)
                                     : o.ranks;
  return parse_ranks(ranks_text, max_ranks, max_what);
}

// The resolved lists the cases are the cross product of.
struct Axes {
  std::vector<std::size_t> sizes;
  std::size_t segment = 0;
  std::vector<Collective> colls;
  std::vector<DataType> dtypes;
  std::vector<ReduceOp> ops;
  std::map<Collective, std::vector<std::string>> algos;
  std::vector<int> ranks;
};

// The element counts of a (collective, datatype, rank count), in size order.
// Sizes that give no element, or the same count as the size before, are
// skipped.
std::vector<std::size_t> case_counts(const std::vector<std::size_t>& sizes, Collective coll,
                                     DataType dtype, int p) {
  std::vector<std::size_t> counts;
  for (std::size_t s : sizes) {
    const std::size_t count = count_for_bytes(coll, dtype, p, s);
    if (count == 0 || (!counts.empty() && count == counts.back())) continue;
    counts.push_back(count);
  }
  return counts;
}

// Expand: one block per rank count, its cases in the sweep's order:
// collective, datatype, op, then size and algorithm (--order interleaved or
// size: every algorithm of a size back to back) or algorithm and size
// (--order algorithm), then placement.
void expand_cases(const Axes& a, SweepOrder order, Plan& plan) {
  for (int p : a.ranks) {
    RankBlock block;
    block.ranks = p;
    const auto add = [&](Collective coll, const std::string& algo, DataType dtype, ReduceOp op,
                         std::size_t count) {
      // A sweep of millions of cases takes seconds to plan: a signal must
      // not wait for it (interrupt.hpp's deadline is the fallback).
      if ((block.cases.size() & 0xffff) == 0xffff)
        if (const int sig = interrupt_signal())
          throw Interrupted(sig, "while planning the sweep; nothing written");
      for (bool in_place : {false, true}) {
        if (in_place ? !plan.in_place : !plan.out_of_place) continue;
        block.cases.push_back({plan.transport_label, coll, algo, dtype, op, in_place, p, count,
                               a.segment, plan.ranks_per_node});
      }
    };
    for (Collective coll : a.colls) {
      const auto it = a.algos.find(coll);
      if (it == a.algos.end()) continue;
      for (DataType dtype : a.dtypes) {
        const std::vector<ReduceOp> case_ops =
            is_reducing(coll) ? a.ops : std::vector<ReduceOp>{ReduceOp::sum};
        const std::vector<std::size_t> counts = case_counts(a.sizes, coll, dtype, p);
        for (ReduceOp op : case_ops) {
          if (!op_applies(op, dtype)) continue;  // checked up front: some pair applies
          if (order == SweepOrder::algorithm) {
            for (const std::string& algo : it->second)
              for (std::size_t count : counts) add(coll, algo, dtype, op, count);
          } else {
            for (std::size_t count : counts)
              for (const std::string& algo : it->second) add(coll, algo, dtype, op, count);
          }
        }
      }
    }
    if (!block.cases.empty()) plan.blocks.push_back(std::move(block));
  }
}

// Check: refuse sizes that cannot fit before anything is allocated: the
// largest case of each (ranks, collective, algorithm, datatype, placement).
void check_memory(const RunOptions& o, const Plan& plan, int ranks_per_node,
                  std::size_t available_bytes) {
  std::map<std::tuple<int, Collective, std::string, DataType, bool>, const Case*> largest;
  for (const RankBlock& b : plan.blocks)
    for (const Case& c : b.cases) {
      const Case*& l = largest[{c.ranks, c.coll, c.algorithm, c.dtype, c.in_place}];
      if (!l || c.count > l->count) l = &c;
    }
  for (const auto& [key, c] : largest) {
    const bool baseline = is_baseline_name(c->algorithm);
    const RankMemory memory = estimate_rank_memory(*c, baseline);
    const std::size_t per_rank = memory.data_bytes + memory.step_bytes;
    const int here = std::min(c->ranks, std::max(1, ranks_per_node));
    const double need = static_cast<double>(per_rank) * here;
    if (c->segment_bytes > 0 && memory.step_bytes > memory.data_bytes &&
        (memory.step_bytes > kMaxStepBytes || need > 0.9 * static_cast<double>(available_bytes)))
      throw UsageError(fmt::format(
          "--segment {} cuts {}/{} at {} on {} ranks into {} steps, whose bookkeeping needs "
          "about {} per rank, more than the data ({}): raise --segment",
          o.segment, to_string(c->coll), c->algorithm, format_bytes(c->bytes()), c->ranks,
          memory.step_bytes / kBytesPerStep, format_bytes(memory.step_bytes),
          format_bytes(memory.data_bytes)));
    if (need > 0.9 * static_cast<double>(available_bytes))
      throw UsageError(fmt::format(
          "size {} (-e {}) needs about {} per rank for {}/{} {} on {} ranks, {} on this node, "
          "more than the {} available: lower -e or the rank count",
          format_bytes(c->bytes()), o.sizes.max_text, format_bytes(per_rank), to_string(c->coll),
          c->algorithm, to_string(c->dtype), c->ranks,
          format_bytes(static_cast<std::size_t>(need)), format_bytes(available_bytes)));
  }
  // Interleaved timing holds every algorithm's buffers of a size at once.
  if (plan.order != SweepOrder::interleaved) return;
  struct Together {
    std::size_t per_rank = 0;  // bytes, summed over the algorithms
    const Case* example = nullptr;
  };
  std::map<std::tuple<int, Collective, DataType, bool, std::size_t>, Together> together;
  for (const RankBlock& b : plan.blocks)
    for (const Case& c : b.cases) {
      Together& t = together[{c.ranks, c.coll, c.dtype, c.in_place, c.count}];
      const RankMemory m = estimate_rank_memory(c, is_baseline_name(c.algorithm));
      t.per_rank += m.data_bytes + m.step_bytes;
      t.example = &c;
    }
  for (const auto& [key, t] : together) {
    const Case* c = t.example;
    const std::size_t per_rank = t.per_rank;
    const int here = std::min(c->ranks, std::max(1, ranks_per_node));
    const double need = static_cast<double>(per_rank) * here;
    if (need > 0.9 * static_cast<double>(available_bytes))
      throw UsageError(fmt::format(
          "size {} (-e {}) needs about {} per rank for every {} algorithm at once (--order "
          "interleaved) on {} ranks, {} on this node, more than the {} available: use --order "
          "size, or lower -e or the rank count",
          format_bytes(c->bytes()), o.sizes.max_text, format_bytes(per_rank),
          to_string(c->coll), c->ranks, format_bytes(static_cast<std::size_t>(need)),
          format_bytes(available_bytes)));
  }
}

// Resolve: --arrival against the start method and every rank count. A
// measured transport places a rank's start only on synchronized clocks.
void resolve_arrival(const RunOptions& o, const TransportSpec& t, const std::vector<int>& ranks,
                     Plan& plan) {
  auto pattern = std::make_shared<ArrivalPattern>(ArrivalPattern::parse(o.arrival, o.seed));
  if (!o.arrival_log.empty() && !pattern->active())
    throw UsageError(fmt::format("--arrival-log {} needs an --arrival pattern", o.arrival_log));
  if (!pattern->active()) return;
  if (plan.sampling.start == StartMethod::back_to_back)
    throw UsageError(fmt::format(
        "--arrival {} cannot be combined with --start back-to-back (a back-to-back loop starts "
        "each iteration when the previous one returns; use --start window)",
        o.arrival));
  if (t.per_process && plan.sampling.start != StartMethod::window)
    throw UsageError(fmt::format(
        "--arrival {} needs --start window (each rank's agreed start on synchronized clocks is "
        "moved by its delay); --start barrier cannot place a rank's start",
        o.arrival));
  for (int p : ranks) pattern->check_ranks(p);
  // Each rank appends to PREFIX.<rank>: a link planted there was written
  // through (the hostile probe); refused before anything is measured.
  const int most = ranks.empty() ? 0 : *std::max_element(ranks.begin(), ranks.end());
  for (int r = 0; !o.arrival_log.empty() && r < most; ++r) {
    const std::string path = o.arrival_log + "." + std::to_string(r);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      throw UsageError(fmt::format("--arrival-log {}: {} is {} (accepted: a prefix whose files "
                                   "PREFIX.<rank> are regular files or do not exist)",
                                   o.arrival_log, path,
                                   S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file"));
  }
  plan.sampling.arrival = std::move(pattern);
  plan.sampling.arrival_log = o.arrival_log;
}

}  // namespace

SweepOrder parse_sweep_order(const std::string& text) {
  for (SweepOrder o : {SweepOrder::interleaved, SweepOrder::size, SweepOrder::algorithm})
    if (text == to_string(o)) return o;
  throw UsageError(
      fmt::format("bad --order '{}' (accepted: interleaved, size, algorithm)", text));
}

std::string_view to_string(SweepOrder order) {
  switch (order) {
    case SweepOrder::interleaved: return "interleaved";
    case SweepOrder::size: return "size";
    case SweepOrder::algorithm: return "algorithm";
  }
  return "?";
}

namespace {

// Resolve: the node layout (Case::ranks_per_node): --ranks-per-node, else the
// runtime's. Hierarchical algorithms need nodes of consecutive ranks.
int resolve_layout(const RunOptions& o, const std::map<Collective, std::vector<std::string>>& algos) {
  if (o.ranks_per_node < 0)
    throw UsageError(fmt::format(
        "bad --ranks-per-node {} (ranks per node: 1 or more; 0 = as the runtime places them)",
        o.ranks_per_node));
  const int k = o.ranks_per_node > 0 ? o.ranks_per_node : o.runtime_ranks_per_node;
  if (k >= 0) return k;
  for (const auto& [coll, names] : algos)
    for (const std::string& name : names)
      if (is_composite_name(name))
        throw UsageError(fmt::format(
            "{} needs nodes of consecutive ranks, all of one size but the last; this launch has "
            "{} (place ranks node by node with equal slots per host, or force --ranks-per-node K)",
            name, o.runtime_layout));
  return k;
}

// One note per hierarchical algorithm and rank count that the layout makes
// degenerate; throws the algorithm's refusal of a layout it cannot run on.
std::vector<std::string> hierarchy_notes(const Plan& plan) {
  std::vector<std::string> notes;
  for (const RankBlock& b : plan.blocks)
    for (const Case& c : b.cases) {
      if (!is_composite_name(c.algorithm)) continue;
      CollParams params;
      params.coll = c.coll;
      params.p = c.ranks;
      params.count = c.count;
      params.ranks_per_node = c.ranks_per_node;
      const std::string note = hierarchy_note(find_algorithm(c.coll, c.algorithm), params);
      if (!note.empty() && std::find(notes.begin(), notes.end(), note) == notes.end())
        notes.push_back(note);
    }
  return notes;
}

}  // namespace

// Resolve every flag (in the order their errors are reported), expand the
// cross product into cases, check that the largest ones fit in memory.
Plan make_plan(const RunOptions& o, int world_size, int ranks_per_node,
               std::size_t available_bytes) {
  Plan plan;
  plan.transport = &find_transport(o.transport);
  TransportSpec& t = *plan.transport;
  if (t.validate) t.validate(t);
  plan.transport_label = t.label ? t.label() : std::string(t.name);
  plan.wait = o.wait;
  plan.sampling = resolve_sampling(o);
  plan.sampling.start = o.start;
  if (o.mode_probe != "on" && o.mode_probe != "off")
    throw UsageError(fmt::format("bad --mode-probe '{}' (accepted: on, off)", o.mode_probe));
  plan.sampling.mode_probe = o.mode_probe == "on";
  resolve_placement(o.placement, plan);

  Axes a;
  a.sizes = o.sizes.bytes;
  a.segment = parse_bytes(o.segment, "--segment");
  a.colls = resolve_collectives(o.colls);
  a.dtypes = resolve_datatypes(o.datatypes);
  a.ops = resolve_ops(o.ops);
  // A logical or bitwise op needs an integer datatype among -d (the other
  // datatypes then skip it).
  for (ReduceOp op : a.ops)
    if (std::none_of(a.dtypes.begin(), a.dtypes.end(),
                     [op](DataType t) { return op_applies(op, t); }))
      require_op_applies(op, a.dtypes.front());
  a.algos = resolve_algorithms(o.algos, o.colls, a.colls, t);
  a.ranks = resolve_ranks(o, t, world_size);

  resolve_arrival(o, t, a.ranks, plan);
  plan.order = parse_sweep_order(o.order);
  plan.ranks_per_node = resolve_layout(o, a.algos);
  expand_cases(a, plan.order, plan);
  plan.notes = hierarchy_notes(plan);
  if (plan.blocks.empty())
    throw UsageError(fmt::format(
        "nothing to run: no size in -b {} .. -e {} holds at least one element per rank for the "
        "selected collectives, datatypes and algorithms (raise -e)",
        o.sizes.min_text, o.sizes.max_text));
  if (t.per_process && available_bytes > 0) check_memory(o, plan, ranks_per_node, available_bytes);
  if (!t.per_process) check_simulated_steps(plan, o.segment, available_bytes);
  return plan;
}

void check_simulated_steps(const Plan& plan, const std::string& segment_text,
                           std::size_t available_bytes) {
  // Only an explicit --segment makes the step count unbounded: the default
  // cuts a message into a few chunks.
  std::map<std::tuple<int, Collective, std::string, DataType, bool>, const Case*> largest;
  for (const RankBlock& b : plan.blocks)
    for (const Case& c : b.cases) {
      if (c.segment_bytes == 0 || is_baseline_name(c.algorithm)) continue;
      const Case*& l = largest[{c.ranks, c.coll, c.algorithm, c.dtype, c.in_place}];
      if (!l || c.count > l->count) l = &c;
    }
  const double limit = std::min(static_cast<double>(kMaxStepBytes),
                                available_bytes > 0 ? 0.5 * static_cast<double>(available_bytes)
                                                    : static_cast<double>(kMaxStepBytes));
  for (const auto& [key, c] : largest) {
    const CollParams params{c->coll,  c->ranks, 0, c->count, c->dtype, c->op, c->in_place,
                            c->segment_bytes};
    // An empty step window: the count without the steps themselves.
    const Schedule s = make_schedule(find_algorithm(c->coll, c->algorithm), params, 0, 0);
    const double need = static_cast<double>(s.total_steps) * kSimBytesPerStep;
    if (need > limit)
      throw UsageError(fmt::format(
          "--segment {} cuts {}/{} at {} on {} ranks into {} steps per rank, whose bookkeeping "
          "in the simulator needs about {}, more than {}: raise --segment",
          segment_text, to_string(c->coll), c->algorithm, format_bytes(c->bytes()), c->ranks,
          s.total_steps, format_bytes(static_cast<std::size_t>(need)),
          format_bytes(static_cast<std::size_t>(limit))));
  }
}

}  // namespace cb
