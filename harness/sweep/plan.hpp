// The resolved run: every Case to measure, grouped by rank count, after all
// user input was checked. make_plan throws UsageError (one line naming the
// bad value and what is accepted) before anything is created or measured.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "transports/contract/transport_spec.hpp"
#include "transports/contract/measure.hpp"
#include "harness/sweep/run_options.hpp"

namespace cb {

// The order of a rank count's cases, and how they are timed (--order).
//  - interleaved: every algorithm of a size back to back, and timed taking
//    turns (time_interleaved, timing.hpp), ~20 ms at a time, so a drift of
//    the machine's speed reaches them alike. On a shared VM the speed of a
//    core drifts over seconds (the mode probe, mode_probe.hpp); measured one
//    after another, one algorithm's sizes fell into a slow spell and the
//    next one's into a fast one, which then decided the measured best.
//    Holds every algorithm's buffers of one size at once.
//  - size: the same order, each case timed alone.
//  - algorithm: one algorithm's sizes back to back, as a loop of
//    nccl-tests runs would measure them.
enum class SweepOrder { interleaved, size, algorithm };

// "interleaved", "size" or "algorithm"; throws UsageError naming the bad
// value otherwise.
SweepOrder parse_sweep_order(const std::string& text);
std::string_view to_string(SweepOrder order);

struct RankBlock {
  int ranks = 1;
  // In run order: coll, dtype, op, then size and algorithm as SweepOrder
  // says, then placement.
  std::vector<Case> cases;
};

struct Plan {
  TransportSpec* transport = nullptr;
  std::string transport_label;  // CSV transport value
  WaitPolicy wait = WaitPolicy::automatic;
  SweepOrder order = SweepOrder::interleaved;
  SamplingPlan sampling;
  bool out_of_place = true, in_place = true;
  std::vector<RankBlock> blocks;
  // The node layout every case runs on (Case::ranks_per_node), and one line
  // per hierarchical algorithm the layout makes degenerate (one node, one
  // rank per node: it runs as its flat phases), for the console.
  int ranks_per_node = 0;
  std::vector<std::string> notes;
  std::size_t total_cases() const;
  // Cases whose case_key is in `keys` (those --resume skips).
  std::size_t cases_in(const std::unordered_set<std::string>& keys) const;
  nlohmann::json to_json(const RunOptions& options) const;
};

// world_size: processes of this launch; ranks_per_node: this node's share of
// them (for the memory estimate); available_bytes: memory this node can give.
Plan make_plan(const RunOptions& options, int world_size, int ranks_per_node,
               std::size_t available_bytes);

// Comma-separated list parsing shared by the flags; repeated items count
// once. An empty item ("ring,,rhd", "ring,", ",") is a typo, not a name to
// skip: UsageError naming `flag` and the text.
std::vector<std::string> split_list(const std::string& text, std::string_view flag);

// "2,4,8", "all" (2..max), "pow2" (powers of two up to max), "A..B" (A, B and
// every power of two and 3*2^k between them: 2..16 = 2,3,4,6,8,12,16; run and
// map share this); empty = {max}. Throws UsageError for values < 1 or > max
// (naming `max_what`, e.g. "the 4 processes of this launch").
std::vector<int> parse_ranks(const std::string& text, int max, const std::string& max_what);

// Memory one rank needs for a case, in bytes; a generous estimate made before
// anything is allocated: data (buffers, scratch, staging, verification) and
// the schedule's steps (a tiny --segment makes millions of them).
struct RankMemory {
  std::size_t data_bytes = 0;
  std::size_t step_bytes = 0;
};
RankMemory estimate_rank_memory(const Case& c, bool baseline);

// MemAvailable of /proc/meminfo in bytes (0 when unknown).
std::size_t available_memory_bytes();

// In-process transports (the simulator, map): refuses, one line naming
// --segment (`segment_text` as typed), a case whose --segment cuts a rank's
// schedule into so many steps that their bookkeeping would exceed 1 GiB or
// half of `available_bytes` (0 = unknown): `map --segment 1 -b 1G` once
// reached bad_alloc or gigabytes. Cheap: counts steps without building them.
void check_simulated_steps(const Plan& plan, const std::string& segment_text,
                           std::size_t available_bytes);

}  // namespace cb
