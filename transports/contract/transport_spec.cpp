#include "transports/contract/transport_spec.hpp"

#include <utility>

namespace cb {

TransportSpec unbuilt_transport(std::string_view name, std::string_view summary,
                                std::string reason) {
  TransportSpec t;
  t.name = name;
  t.summary = summary;
  t.available = false;
  t.unavailable_reason = std::move(reason);
  return t;
}

}  // namespace cb
