// The transport list (transports.hpp), filled by the generated add_transports
// (transport_list.cpp.in).
#include <fmt/format.h>

#include "harness/runtime/transports.hpp"

namespace cb {


std::vector<TransportSpec>& transports() {
  static std::vector<TransportSpec> list = [] {
    std::vector<TransportSpec> l;
    add_transports(l);
    return l;
  }();
  return list;
}

TransportSpec& find_transport(std::string_view name) {
  std::string valid;
  for (TransportSpec& t : transports()) {
    if (t.name == name) {
      if (!t.available)
        throw UsageError(fmt::format("transport '{}' is not available in this build: {}", name,
                                     t.unavailable_reason));
      return t;
    }
    if (t.available) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", t.name);
  }
  throw UsageError(fmt::format("unknown transport '{}' (valid: {})", name, valid));
}

bool is_baseline_name(std::string_view algorithm) {
  for (const TransportSpec& t : transports())
    for (std::string_view b : t.baselines)
      if (b == algorithm) return true;
  return false;
}

}  // namespace cb
