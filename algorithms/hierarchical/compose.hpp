// Hierarchical (two-level) algorithms composed from the registered ones.
//
// Names (the CLI's --algo value, the CSV's algorithm column):
//   hier:INNER/OUTER    one leader per node (local rank 0); INNER: tree =
//                     binomial, ps = linear (rooted.hpp):
//     allreduce       reduce to the leader -> OUTER all-reduce among the
//                     leaders -> broadcast from the leader
//     reduce_scatter  reduce of the whole input to the leader -> OUTER
//                     reduce-scatter of the nodes' parts among the leaders
//                     -> scatter from the leader
//     allgather       gather to the leader -> OUTER all-gather of the
//                     nodes' parts among the leaders -> broadcast
//   hier2d:INNER/OUTER  multi-leader (2D): local rank i of every node forms
//                     lane i, and the K lanes run the inter-node phase
//                     concurrently on 1/K of the data each:
//     allreduce       INNER reduce-scatter in the node -> OUTER all-reduce
//                     in each lane -> INNER all-gather in the node
//     reduce_scatter  INNER reduce-scatter in the node (of the lane-ordered
//                     input) -> OUTER reduce-scatter in each lane
//     allgather       OUTER all-gather in each lane -> INNER all-gather in
//                     the node -> reorder into rank order
//     alltoall        reorder by destination lane -> INNER all-to-all in the
//                     node -> reorder by destination node -> OUTER
//                     all-to-all in each lane
// INNER and OUTER are registry names (a name of the sub-collective each phase
// runs; for hier2d allreduce, INNER must exist for both reduce-scatter and
// all-gather). The layout is CollParams::ranks_per_node (layout.hpp).
// hier: all-reduce works for any layout (the last node may hold fewer
// ranks); the other forms need every node to hold the same number of ranks
// and refuse otherwise, in one line.
// On one node (or one rank per node) the inter-node phase has one rank and
// does nothing, so the algorithm runs as its inner phases alone (a flat
// algorithm); the CLI says so in a note (hierarchy_note).
//
// Cost = the sum of the phases' costs (plan.hpp): exact, like every closed
// form in the registry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/registry.hpp"

namespace cb {

enum class HierForm { leader, multi_leader };

struct Composition {
  HierForm form = HierForm::leader;
  // The phases' algorithms: first and last intra-node phase (the same entry
  // where the form has one intra phase) and the inter-node phase.
  const AlgorithmEntry* inner_first = nullptr;
  const AlgorithmEntry* inner_last = nullptr;
  const AlgorithmEntry* outer = nullptr;
  std::string_view name;  // "hier2d:ring/rhd", for messages
};

// Whether `name` names a composed algorithm (has a "hier...:" prefix).
bool is_composite_name(std::string_view name);

// The registry entry for a composed name, created on first use and kept for
// the program's life (entries are stable; the function is thread-safe).
// Throws UsageError naming the bad part and what is accepted.
const AlgorithmEntry& find_composite(Collective coll, std::string_view name);

// The forms for `collbench list`: one line each, "hier2d:INNER/OUTER  ..."
// with the accepted INNER and OUTER names, for collective `coll`.
std::vector<std::string> composite_forms(Collective coll);

// Every composed name of `coll` (every INNER x OUTER of every form), for tests.
std::vector<std::string> all_composite_names(Collective coll);

// One line for the CLI when the layout makes the algorithm degenerate (one
// node, or one rank per node); empty otherwise. Throws UsageError when the
// algorithm cannot run on the layout (hier2d on uneven nodes).
std::string hierarchy_note(const AlgorithmEntry& algo, const CollParams& params);

// The cost of a composed entry on params' layout split by level: the phases
// inside nodes and those across them (their sum is closed_form_cost). The
// simulator prices the two with the intra- and inter-node alpha, beta.
// Throws like make_schedule on a layout the entry refuses.
struct TwoLevelCost {
  Cost intra;
  Cost inter;
};
TwoLevelCost two_level_cost(const Composition& c, const CollParams& params);

// The registered algorithms the phases run (with their group sizes on
// params' layout), for rules that hold per algorithm (the simulator's fast
// path); rooted inner phases are listed as the registered `tree` or `ps`
// all-reduce they are halves of.
struct PhaseAlgorithm {
  const AlgorithmEntry* algo;
  int group_size;
};
std::vector<PhaseAlgorithm> phase_algorithms(const Composition& c, const CollParams& params);

// The phases on params' layout, in order: the algorithm, its sub-collective
// (sub.p the size of rank 0's group, sub.rank 0), whether it crosses nodes,
// and how many groups run it at once. An inter-node phase's groups each have
// one rank on every node (the K lanes of hier2d:, the one group of leaders
// of hier:), so that a node's link carries `groups` copies of one group
// rank's messages. For the two-level model's shared node link
// (models/two_level.hpp) and the simulator's fast path. Throws like
// make_schedule.
struct LevelPhase {
  const AlgorithmEntry* algo;
  CollParams sub;
  bool inter_node;
  int groups;
};
std::vector<LevelPhase> level_phases(const Composition& c, const CollParams& params);

// What registry.cpp calls for entries with a composition.
void generate_composite(const Composition& c, const CollParams& params, ScheduleBuilder& b);
Cost composite_cost(const Composition& c, const CollParams& params);

}  // namespace cb
