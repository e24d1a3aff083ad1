#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "models/io/output_file.hpp"
#include "harness/runtime/world.hpp"

namespace cb {

bool is_reporting_rank() {
  if (world_started()) return world().rank() == 0;
  // Hydra (and most launchers' PMI) export the rank before MPI_Init.
  const char* pmi = std::getenv("PMI_RANK");
  return pmi == nullptr || std::string_view(pmi) == "0";
}

void announce_exit_status(int status) {
  // A launcher may kill this process once the status is there.
  std::fflush(nullptr);
  const char* path = std::getenv("COLLBENCH_EXIT_FILE");
  if (path == nullptr || *path == '\0') return;
  // As every output: a new temporary under an unpredictable name (O_EXCL,
  // O_NOFOLLOW), renamed into place, so the launcher never reads a
  // half-written status and a link planted at a guessable "<path>.tmp"
  // never redirects the write (it once went through fopen).
  try {
    io::write_whole_file(path, "COLLBENCH_EXIT_FILE", std::to_string(status) + "\n");
  } catch (const std::exception& e) {
    // The exit status itself is what matters now; the file is a courtesy.
    std::fprintf(stderr, "collbench: warning: %s\n", e.what());
  }
}

}  // namespace cb
