// SIGINT / SIGTERM / SIGHUP during a run: the handler only records the
// signal; the runner checks it between configurations and between sample
// batches (at most ~0.5 s apart), agrees on it across ranks, and stops cleanly
// (finished rows kept, files completed as reporter.hpp says).
//
// A repeat within a second of the first signal counts as the same one: a
// Ctrl-C reaches each rank twice, from the terminal and forwarded by mpiexec.
// A signal after that ends the process at once: the abrupt-exit hook runs
// (async-signal-safe cleanup, e.g. unlinking shared-memory names) and the
// process _exits with 128 + signal, a status mpiexec passes on (a rank killed
// by the signal itself makes MPICH's mpiexec return 0 or 2 at random).
#pragma once

namespace cb {

void install_interrupt_handlers();
// The signal received (SIGINT, SIGTERM, SIGHUP) or 0.
int interrupt_signal();
// Async-signal-safe cleanup to run before an abrupt exit (one hook).
void set_abrupt_exit_hook(void (*hook)());
// Runs that hook (if any), for other abrupt exits (the watchdog's _Exit).
void run_abrupt_exit_hook();

}  // namespace cb
