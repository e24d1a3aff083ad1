// The world of a build without MPI: one process.
#include <cstdlib>
#include <memory>
#include <vector>

#include "harness/runtime/node_layout.hpp"
#include "harness/runtime/rank_subgroup.hpp"
#include "harness/runtime/world.hpp"

namespace cb {
namespace {
std::unique_ptr<Group>& world_group() {
  static std::unique_ptr<Group> g;
  return g;
}
}  // namespace

Group& world(WaitPolicy) {
  auto& g = world_group();
  if (!g) g = make_self_group();
  return *g;
}

bool world_started() { return world_group() != nullptr; }
std::string mpi_library_version() { return "none"; }
std::vector<RankPlace> gather_rank_places() { return {this_place()}; }
NodeLayoutInfo world_node_layout() { return layout_from_nodes(std::vector<int>{0}); }
void finalize_world() { world_group().reset(); }
std::unique_ptr<Group> rank_subgroup(Group& g, std::span<const int> members, WaitPolicy wait) {
  return one_process_subgroup(g, members, wait);
}
void abort_world(int status) { std::exit(status); }

}  // namespace cb
