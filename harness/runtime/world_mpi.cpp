// The world of a build with MPI: MPI_COMM_WORLD, started on first use.
#include <mpi.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "harness/runtime/group_mpi.hpp"
#include "harness/runtime/node_layout.hpp"
#include "harness/runtime/world.hpp"
#include "harness/runtime/phase_deadline.hpp"
#include "transports/mpi/wait.hpp"

namespace cb {
namespace {
std::unique_ptr<MpiGroup>& world_group() {
  static std::unique_ptr<MpiGroup> g;
  return g;
}
}  // namespace

Group& world(WaitPolicy wait) {
  auto& g = world_group();
  if (!g) {
    int started = 0;
    MPI_Initialized(&started);
    if (!started) {
      // A peer stopped during start-up holds MPI_Init for ever (--timeout).
      const PhaseDeadline deadline("MPI_Init");
      MPI_Init(nullptr, nullptr);
    }
    // Errors come back as return codes, which check_mpi turns into exceptions.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    g = std::make_unique<MpiGroup>(MPI_COMM_WORLD, wait);
  }
  return *g;
}

bool world_started() { return world_group() != nullptr; }

NodeLayoutInfo world_node_layout() {
  world();
  // A node is what MPI calls one shared-memory domain; it is named by the
  // lowest world rank on it, and every rank learns every rank's node.
  MPI_Comm node = MPI_COMM_NULL;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  int leader = rank;
  check_mpi(MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node), "MPI_Allreduce(node)");
  MPI_Comm_free(&node);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> node_of_rank(static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(&leader, 1, MPI_INT, node_of_rank.data(), 1, MPI_INT, MPI_COMM_WORLD),
            "MPI_Allgather(nodes)");
  return layout_from_nodes(node_of_rank);
}

std::vector<RankPlace> gather_rank_places() {
  Group& w = world();
  RankPlace me = this_place();
  // Fixed-size records: one MPI_Gather, no size exchange first.
  struct Wire {
    long pid;
    int core;
    char host[64];
    char affinity[64];
  } wire{};
  wire.pid = me.pid;
  wire.core = me.core;
  me.host.copy(wire.host, sizeof wire.host - 1);
  me.affinity.copy(wire.affinity, sizeof wire.affinity - 1);
  const bool root = w.rank() == 0;
  std::vector<Wire> all(root ? static_cast<std::size_t>(w.size()) : 0);
  const PhaseDeadline deadline("gathering the rank map");  // blocking inside MPI
  MPI_Gather(&wire, sizeof wire, MPI_BYTE, all.data(), sizeof wire, MPI_BYTE, 0, MPI_COMM_WORLD);
  std::vector<RankPlace> out;
  for (std::size_t r = 0; r < all.size(); ++r) {
    RankPlace p;
    p.rank = static_cast<int>(r);
    p.pid = all[r].pid;
    p.core = all[r].core;
    p.host = all[r].host;
    p.affinity = all[r].affinity;
    out.push_back(std::move(p));
  }
  return out;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string v(text, static_cast<std::size_t>(len));
  // MPICH's string spans several lines; the first names the version.
  if (auto nl = v.find('\n'); nl != std::string::npos) v.resize(nl);
  // One CSV-friendly line: "MPICH Version: 4.0.2", tabs and runs of blanks collapsed.
  std::string out;
  for (char ch : v) {
    const bool blank = ch == ' ' || ch == '\t';
    if (blank && (out.empty() || out.back() == ' ')) continue;
    out += blank ? ' ' : ch;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

void finalize_world() {
  auto& g = world_group();
  if (!g) return;
  g.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void abort_world(int status) {
  if (world_started() && world().size() > 1) MPI_Abort(MPI_COMM_WORLD, status);
  finalize_world();
  std::exit(status);
}

}  // namespace cb
