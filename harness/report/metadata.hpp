// Run metadata recorded in every CSV row and the JSON header.
#pragma once

#include <string>
#include <string_view>

namespace cb {

struct RunMetadata {
  std::string host;
  std::string timestamp;  // ISO 8601 UTC, e.g. 2026-11-21T23:50:00Z
  std::string collbench_version;
  std::string git_rev;
  std::string mpi_version;  // "none" without MPI
};

// The revision the binary was built from (meson vcs_tag; "unknown" outside git).
std::string_view git_revision();

// Host name, current UTC time, versions. Call after the world is up so the
// MPI version is known.
RunMetadata collect_metadata();

}  // namespace cb
