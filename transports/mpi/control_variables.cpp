#include "transports/mpi/control_variables.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

namespace cb {

std::string mpich_control_variables(const char* const* env) {
  std::vector<std::string> found;
  for (; env && *env; ++env) {
    const std::string_view kv(*env);
    if (kv.starts_with("MPIR_CVAR_") && kv.find('=') != std::string_view::npos)
      found.emplace_back(kv);
  }
  // Sorted, so that the same settings give the same cell whatever order the
  // launcher passed them in.
  std::sort(found.begin(), found.end());
  std::string out;
  for (const std::string& kv : found) {
    if (!out.empty()) out += ';';
    out += kv;
  }
  return out;
}

}  // namespace cb
