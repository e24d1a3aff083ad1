#include "harness/report/metadata.hpp"

#include <fmt/chrono.h>
#include <unistd.h>

#include <chrono>
#include <climits>

#include "harness/config.hpp"
#include "harness/runtime/world.hpp"

namespace cb {

RunMetadata collect_metadata() {
  RunMetadata m;
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  m.timestamp =
      fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
  m.collbench_version = CB_VERSION;
  m.git_rev = std::string(git_revision());
  m.mpi_version = mpi_library_version();
  return m;
}

}  // namespace cb
