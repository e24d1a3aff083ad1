#include <cstdlib>
#include <string_view>

#include "harness/runtime/world.hpp"

namespace cb {

bool is_reporting_rank() {
  if (world_started()) return world().rank() == 0;
  // Hydra (and most launchers' PMI) export the rank before MPI_Init.
  const char* pmi = std::getenv("PMI_RANK");
  return pmi == nullptr || std::string_view(pmi) == "0";
}

}  // namespace cb
