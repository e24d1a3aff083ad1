// The registry: which (collective, algorithm) pairs exist, how to generate
// their schedules and what they cost in closed form. The key "allreduce/ring"
// is also the CLI value (--coll allreduce --algo ring) and the CSV columns.
//
// Adding an algorithm = one file algorithms/<collective>/<name>.cpp plus one
// row in registry_table.inc (see algorithms/README.md for the exact diff);
// meson, tests, CLI, simulator, models and the MPICH export pick it up. The
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

struct AlgorithmEntry {
  Collective coll;
  std::string_view name;     // "ring"
  std::string_view summary;  // one line for `collbench list`
  GenerateFn generate;
  CostFn cost;
  bool segmented = false;  // honours CollParams::segment_bytes
  // MPICH's same algorithm: the MPIR_CVAR_<COLL>_INTRA_ALGORITHM value ("" =
  // none) and whether MPICH's version needs a power-of-two communicator.
  std::string_view mpich;
  bool mpich_pow2_only = false;
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
