// What `collbench --version` prints: the collbench version and git revision,
// the MPI library it runs with and the MPI/CUDA/NCCL headers it was built
// against, so a results file or a bug report can name the exact stack.
#pragma once

#include <string>

namespace cb {

// Several lines, the first "collbench X.Y.Z (git REV)".
std::string version_text();

}  // namespace cb
