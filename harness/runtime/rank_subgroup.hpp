// A group of chosen ranks of a group, for measurements on pairs that are not
// its first ranks: calibrate's network ping-pong between the leaders of two
// nodes (ranks 0 and K) and its fan-in on the node leaders.
#pragma once

#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "harness/runtime/group.hpp"

namespace cb {

// Collective over `g`: a group of the ranks `members` (distinct ranks of g;
// members[i] becomes rank i), with `wait` resolved as in Group::first_ranks;
// nullptr on the other ranks. Defined with the MPI group (group_mpi.cpp), or
// without MPI (world_self.cpp), where every group is one process.
std::unique_ptr<Group> rank_subgroup(Group& g, std::span<const int> members, WaitPolicy wait);

// A group of one process: its only rank is 0, so `members` is empty or {0}.
inline std::unique_ptr<Group> one_process_subgroup(Group& g, std::span<const int> members,
                                                   WaitPolicy wait) {
  if (g.size() != 1) throw std::logic_error("rank_subgroup: a group of several processes without MPI");
  for (int m : members)
    if (m != 0) throw std::logic_error("rank_subgroup: a group of one process has no rank " + std::to_string(m));
  return g.first_ranks(members.empty() ? 0 : 1, wait);
}

}  // namespace cb
