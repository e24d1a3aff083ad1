// The Measurer of per-process transports: builds this rank's schedule (or
// none for a library baseline), asks the transport for its Operation, times
// it (timing.hpp) and verifies it with fresh data (verification.hpp).
#pragma once

#include <memory>

#include "transports/contract/transport_spec.hpp"

namespace cb {

std::unique_ptr<Measurer> make_process_measurer(const TransportSpec& transport);

}  // namespace cb
