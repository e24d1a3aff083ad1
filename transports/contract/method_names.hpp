// The names of the wait policies and start methods, as flags, CSV cells and
// JSON values spell them. Parsing happens where text enters: the CLI
// (harness/cli/cmd_run.cpp) and the environment (COLLBENCH_WAIT, read by
// harness/runtime/group_self.cpp); everything past them holds the enums.
#pragma once

#include <string_view>

#include "transports/contract/measure.hpp"
#include "transports/contract/transport.hpp"

namespace cb {

std::string_view to_string(WaitPolicy w);
// "spin", "yield", "sleep", "auto"; throws UsageError otherwise.
WaitPolicy parse_wait_policy(std::string_view name);

std::string_view to_string(StartMethod s);
// "barrier", "window" or "back-to-back" (--start); throws UsageError otherwise.
StartMethod parse_start_method(std::string_view name);

}  // namespace cb
