// A hierarchical algorithm as a plan: local copy steps and phases, each phase
// an existing algorithm run on a sub-communicator (one node's ranks, or one
// lane: the ranks with the same local index on every node, or the node
// leaders) with its ranks and buffer regions remapped into the whole
// schedule. compose.cpp builds the plans; this file runs them (emit_plan) and
// prices them (plan_cost), so the schedule and its cost come from one plan.
//
// Phases follow each other in global rounds: a phase lasts as many steps as
// its longest group's sub-schedule (groups of different sizes run
// concurrently, the shorter ones idle at the end), and a rank outside every
// group of a phase idles through it. Units: every offset and count in
// ELEMENTS, as in schedule.hpp.
#pragma once

#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "algorithms/builder.hpp"
#include "algorithms/params.hpp"
#include "algorithms/registry.hpp"

namespace cb::hier {

// Where a sub-schedule's buffer lives in the whole schedule: buffer `buf` of
// the whole schedule (kInput, kOutput, or kScratch0 + k for the plan's own
// scratch k), from element `base`.
struct Place {
  BufferId buf = kOutput;
  std::size_t base = 0;
};

struct Phase {
  const AlgorithmEntry* algo = nullptr;
  // The sub-collective: coll, count, dtype, op (sum for avg: the whole
  // schedule divides once at the end), in_place, segment_bytes; p and rank
  // are this rank's group size and index in it (when member).
  CollParams sub;
  bool member = false;
  // Sub rank q is global rank first + q * stride.
  int first = 0;
  int stride = 1;
  // Out of place: the sub's input and output. In place: `output` is the one
  // allocation; the sub's views sit at in_place_layout's offsets in it.
  Place input;
  Place output;
  // Sizes of all the groups that run this phase concurrently (every rank's
  // plan lists the same sizes): they fix the phase's length and cost.
  std::vector<int> group_sizes;
  // Whether the phase's messages cross node boundaries (for the docs and
  // the two-level model; the simulator reads the endpoints themselves).
  bool inter_node = false;
};

// A step of local copies (src, dst), not costed.
using CopyStep = std::vector<std::pair<Region, Region>>;

struct Plan {
  std::vector<std::size_t> scratch;  // the plan's own scratch buffers (elements)
  std::vector<std::variant<CopyStep, Phase>> items;
};

// Emits rank b.params().rank's schedule for the plan into b (honouring b's
// window): declares the plan's scratch first (ids kScratch0 + k), then each
// item in order.
void emit_plan(const Plan& plan, ScheduleBuilder& b);

// Exact cost (params.hpp's convention) of the plan's schedules: per phase the
// closed-form cost of its algorithm when its groups are all the same size,
// else the per-round maxima over its groups' sub-schedules; summed.
Cost plan_cost(const Plan& plan);

// The same, split by level: the phases inside nodes and those across them
// (Phase::inter_node). plan_cost = intra + inter term by term.
struct LevelCost {
  Cost intra;
  Cost inter;
};
LevelCost plan_cost_by_level(const Plan& plan);

}  // namespace cb::hier
