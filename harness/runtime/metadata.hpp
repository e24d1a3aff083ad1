// Run metadata recorded in every CSV row and the JSON header.
#pragma once

// Only the JSON type's declaration: metadata.cpp and json.cpp, which build
// and use metadata_json's value, include the whole library; the many
// includers of RunMetadata need not.
#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/runtime/load.hpp"

namespace cb {

// Where one rank of the launch runs (the console header's rank map, as
// nccl-tests lists its devices).
struct RankPlace {
  int rank = 0;
  std::string host;
  long pid = 0;
  int core = -1;          // the CPU it ran on when asked (sched_getcpu)
  std::string affinity;   // CPUs it may run on, e.g. "0-1" or "3"
};

// This process's RankPlace (rank 0; the caller sets the rank).
RankPlace this_place();
// "0-3,6": a CPU set as ranges.
std::string cpu_list_text();

struct RunMetadata {
  std::string host;
  std::string timestamp;  // ISO 8601 UTC, e.g. 2026-11-21T23:50:00Z
  std::string collbench_version;
  std::string git_rev;
  std::string mpi_version;  // "none" without MPI
  std::optional<MachineLoad> load;  // when the run started
  std::vector<RankPlace> places;    // every rank of the launch (empty: in-process transport)
  // The node layout the cases run on (NodeLayoutInfo::describe), e.g.
  // "2 nodes x 4 ranks"; empty when unknown.
  std::string layout;
};

// The metadata object of the JSON output.
nlohmann::json metadata_json(const RunMetadata& m);

// The revision the binary was built from (meson vcs_tag; "unknown" outside git).
std::string_view git_revision();

// Host name, current UTC time, versions. Call after the world is up so the
// MPI version is known.
RunMetadata collect_metadata();

}  // namespace cb
