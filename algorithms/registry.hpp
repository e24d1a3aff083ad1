// The registry: which (collective, algorithm) pairs exist, how to generate
// their schedules and what they cost in closed form. The key "allreduce/ring"
// is also the CLI value (--coll allreduce --algo ring) and the CSV columns.
//
// Adding an algorithm = one file algorithms/<collective>/<name>.cpp plus one
// row in registry_table.inc (see algorithms/README.md for the exact diff);
// meson, tests, CLI, simulator, models and the MPICH export pick it up. What
// other layers branch on is a column of the row, never the name: no code
// outside the registry compares an algorithm's name with a literal. The
// README's algorithm matrix documents the pair, and registry_test.cpp fails
// until it does.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "algorithms/builder.hpp"
#include "algorithms/params.hpp"
#include "algorithms/schedule.hpp"

namespace cb {

struct Composition;  // algorithms/hierarchical/compose.hpp

using GenerateFn = void (*)(const CollParams&, ScheduleBuilder&);
// Closed-form cost of the exact variant implemented (non-power-of-two folds
// and uneven splits included); must equal schedule_cost() of the generated
// schedules for count > 0. Units as in Cost.
using CostFn = Cost (*)(const CollParams&);

// Row flags of registry_table.inc (the `traits` column): what the rest of
// collbench branches on besides the name.
// kSegmented: the generator honours CollParams::segment_bytes (--segment):
//   it pipelines.
inline constexpr unsigned kSegmented = 1u << 0;
// kCostSlack: a simulation can beat the closed form, round-synchronous or
//   not (no single rank attains every step's maxima: dbtree's two pipelined
//   trees); kCostSlackUnlessPow2: only an asynchronous one, and only when p
//   is not a power of two (uneven blocks put the step maxima on ranks the
//   next step's critical ranks do not wait for). transports/sim/fast_path.hpp
//   takes the exact fast path only where neither applies.
inline constexpr unsigned kCostSlack = 1u << 1;
inline constexpr unsigned kCostSlackUnlessPow2 = 1u << 2;
// kPricesBaselines: a library baseline's case (MPI, NCCL) is priced as this
//   algorithm would cost before it is measured (the planner's time weights);
//   one row per collective has it.
inline constexpr unsigned kPricesBaselines = 1u << 3;
// kDirect: one round in which every rank sends to and receives from every
//   other rank, so p - 1 messages arrive at each rank's link at once (on a
//   shaped link their flows contend: incast). The testbed's classes of a
//   missed crossover read it (models/miss_classes.hpp); registry_test.cpp
//   checks it against the schedules.
inline constexpr unsigned kDirect = 1u << 4;

// Flags of the `mpich_restrictions` column: the restrictions of MPICH's
// version of the algorithm, as MPICH's coll_algorithms.txt spells them. The
// selection export (models/mpich_selection.hpp) derives its guards from them.
inline constexpr unsigned kMpichPow2 = 1u << 0;          // power-of-two: p = 2^k only
inline constexpr unsigned kMpichCommutative = 1u << 1;   // commutative: commutative ops only
inline constexpr unsigned kMpichBuiltinOp = 1u << 2;     // builtin-op: MPI's predefined ops only
inline constexpr unsigned kMpichNoInPlace = 1u << 3;     // noinplace: MPI_IN_PLACE refused
inline constexpr unsigned kMpichCountGePof2 = 1u << 4;   // size-ge-pof2: count >= p'

// When a simulation of the schedule can finish before its closed-form cost
// (kCostSlack, kCostSlackUnlessPow2 above).
enum class CostSlack : std::uint8_t { none, async_unless_pow2, always };

struct AlgorithmEntry {
  Collective coll;
  std::string_view name;     // "ring"
  std::string_view summary;  // one line for `collbench list`
  GenerateFn generate;
  CostFn cost;
  bool segmented = false;  // honours CollParams::segment_bytes (kSegmented)
  // MPICH's same algorithm: the MPIR_CVAR_<COLL>_INTRA_ALGORITHM value ("" =
  // none) and the restrictions of MPICH's version (kMpich* flags).
  std::string_view mpich{};
  bool mpich_pow2_only = false;         // kMpichPow2
  bool mpich_commutative_only = false;  // kMpichCommutative
  bool mpich_builtin_op_only = false;   // kMpichBuiltinOp
  bool mpich_no_in_place = false;       // kMpichNoInPlace
  bool mpich_count_ge_pof2 = false;     // kMpichCountGePof2
  CostSlack cost_slack = CostSlack::none;
  bool prices_baselines = false;  // kPricesBaselines
  bool direct = false;            // kDirect
  // Set for hierarchical algorithms composed from the registered ones
  // ("hier:tree/ring"; algorithms/hierarchical/compose.hpp): generate and
  // cost are null and make_schedule / closed_form_cost run the composition.
  // Such entries are not in the table: find_algorithm creates them by name.
  const Composition* composition = nullptr;
};

// The rows of one collective.
std::span<const AlgorithmEntry> algorithms_for(Collective coll);
// Every entry, collective by collective.
std::vector<const AlgorithmEntry*> all_algorithms();
// Distinct algorithm names over all collectives, in first-seen order.
std::vector<std::string_view> all_algorithm_names();
// Distinct names of the algorithms that honour --segment ("ring/tree/dbtree").
std::string segmented_algorithm_names(std::string_view separator = "/");

// The row of `coll` with kPricesBaselines.
const AlgorithmEntry& baseline_price_entry(Collective coll);

// Throws UsageError naming the bad value and listing the algorithms that exist
// for `coll` when the pair is undefined. Besides the table's names it accepts
// the hierarchical compositions (hier:INNER/OUTER, hier2d:INNER/OUTER; see
// algorithms/hierarchical/compose.hpp), which the table's iterators above do
// not list.
const AlgorithmEntry& find_algorithm(Collective coll, std::string_view name);

// Rank params.rank's schedule. Count 0 gives a schedule with no steps; p = 1
// a single local copy (none in place), so generators only see p >= 2. For
// ReduceOp::avg on a reducing collective a final step divides the output by p.
// window_begin/window_end keep only those steps (see ScheduleBuilder).
// `storage` lends the step vectors of an earlier schedule (see ScheduleBuilder).
Schedule make_schedule(const AlgorithmEntry& algo, const CollParams& params,
                       std::uint64_t window_begin = 0,
                       std::uint64_t window_end = ScheduleBuilder::kNoEnd, Schedule storage = {});
Schedule make_schedule(std::string_view algorithm, const CollParams& params);

// The closed-form cost (0 for count 0).
Cost closed_form_cost(const AlgorithmEntry& algo, const CollParams& params);

}  // namespace cb
