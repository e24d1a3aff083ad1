// The exit statuses of collbench (USAGE.md): 0 ok, 1 wrong elements, 2 bad
// input, 3 internal error, 4 an output could not be written (full disk,
// closed stdout), 5 the watchdog expired (a peer stopped), 128 + signal when
// interrupted. Here, below the sweep and the CLI, because the runtime's
// start-up deadline (phase_deadline.hpp) and the sweep end processes with
// them too.
#pragma once

namespace cb {

// The command's own check failed: wrong elements (run, map) or a
// regression (compare).
inline constexpr int kExitFailed = 1;
inline constexpr int kExitWriteFailed = 4;
inline constexpr int kExitWatchdog = 5;

}  // namespace cb
