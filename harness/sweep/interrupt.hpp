// SIGINT / SIGTERM during a run: the handler only records the signal; the
// runner checks it between configurations, agrees on it across ranks, and
// stops cleanly (finished rows kept, files completed as reporter.hpp says).
// A second signal terminates at once.
#pragma once

namespace cb {

void install_interrupt_handlers();
// The signal received (SIGINT, SIGTERM) or 0.
int interrupt_signal();

}  // namespace cb
