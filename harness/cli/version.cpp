#include "harness/cli/version.hpp"

#include <fmt/format.h>

#include "harness/config.hpp"
#include "harness/runtime/metadata.hpp"
#include "harness/runtime/world.hpp"

namespace cb {

std::string version_text() {
  std::string s = fmt::format("collbench {} (git {})\n", CB_VERSION, git_revision());
  // MPI_Get_library_version may be called before MPI_Init (MPI-3), so this
  // does not start MPI.
  s += fmt::format("MPI:  {} (built against {})\n", mpi_library_version(), CB_MPI_BUILT_WITH);
  s += fmt::format("CUDA: {}\n", CB_CUDA_BUILT_WITH);
  s += fmt::format("NCCL: {}\n", CB_NCCL_BUILT_WITH);
  s += "License: MIT";
  return s;
}

}  // namespace cb
