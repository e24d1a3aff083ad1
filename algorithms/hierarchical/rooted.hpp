// Rooted phases of the one-leader hierarchical algorithms: reduce to and
// broadcast from local rank 0 of a node, as sub-schedules compose.cpp
// remaps. They are the halves of the registered all-reduce algorithms
// `tree` and `ps`, built from the same emitters (common/binomial_tree.hpp)
// and in the same shape, so `hier:tree/X` reduces and broadcasts inside the
// node exactly as allreduce/tree does, minus the part it does not need.
//
// All are all-reduce-shaped (coll = allreduce, count elements in and out);
// only the root's output is the result of a reduce, and a broadcast runs in
// place (the root's output holds the vector, the others receive into theirs).
// None is in the registry: they have no cost function of their own and
// plan_cost reads their cost off their schedules.
#pragma once

#include <string_view>

#include "algorithms/registry.hpp"

namespace cb::hier {

struct RootedPair {
  const AlgorithmEntry* reduce;
  const AlgorithmEntry* broadcast;
  // Gather to rank 0 (allgather-shaped: count c in, p*c out at the root in
  // rank order) and scatter from it (reduce_scatter-shaped: p*c in at the
  // root, c out everywhere; ranks below the root with children keep their
  // subtree's blocks in their own input buffer, so it must be writable).
  const AlgorithmEntry* gather;
  const AlgorithmEntry* scatter;
};

// The phases for an inner name ("tree", "ps"); nullptr members when unknown.
RootedPair rooted_pair(std::string_view inner);

// The inner names rooted_pair knows, for messages and `collbench list`.
inline constexpr std::string_view kRootedInners[] = {"tree", "ps"};

}  // namespace cb::hier
