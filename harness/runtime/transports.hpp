// The transports this binary knows (transports/contract/transport_spec.hpp
// says what one is), in `collbench list` order.
#pragma once

#include <string_view>
#include <vector>

#include "transports/contract/transport_spec.hpp"

namespace cb {

// Appends every transport of the build (generated: transport_list.cpp.in).
void add_transports(std::vector<TransportSpec>& list);
// Every transport this binary knows, built or not, in `list` order.
std::vector<TransportSpec>& transports();
// Throws UsageError naming the value and the transports this build has.
TransportSpec& find_transport(std::string_view name);

// True when `algorithm` is a library baseline of some transport.
bool is_baseline_name(std::string_view algorithm);

}  // namespace cb
