// SIGINT / SIGTERM / SIGHUP during a run: the handler only records the
// signal; the runner checks it between configurations and between sample
// batches (at most ~0.5 s apart), agrees on it across ranks, and stops cleanly
// (finished rows kept, files completed as reporter.hpp says).
//
// Phases without a check (IPC setup, communicator creation, big allocations,
// the simulator at huge p) can last far longer. So if nothing has looked at
// the first signal (interrupt_signal()) within a second, and the rank is not
// waiting at an InterruptBoundary, it ends as a second signal ends it, with
// one "interrupted" line (SIGALRM is taken for this deadline). The second
// counts once the rank has used half a second of CPU since the signal (a
// rank starved of cores by a loaded machine gets its chance to reach a
// check), and at most 5 s of wall time (a rank blocked off the CPU).
//
// A repeat within a second of the first signal counts as the same one: a
// Ctrl-C reaches each rank twice, from the terminal and forwarded by mpiexec.
// A signal after that ends the process at once: the abrupt-exit hook runs
// (async-signal-safe cleanup, e.g. unlinking shared-memory names) and the
// process _exits with 128 + signal, a status mpiexec passes on (a rank killed
// by the signal itself makes MPICH's mpiexec return 0 or 2 at random).
#pragma once

#include <stdexcept>
#include <string>

namespace cb {

// Thrown, on every rank alike, by a command that stops on an agreed signal
// without rows to keep (calibrate); main prints "interrupted (signal N) ..."
// and exits 128 + N.
struct Interrupted : std::runtime_error {
  Interrupted(int sig, const std::string& what) : std::runtime_error(what), signal(sig) {}
  int signal;
};

void install_interrupt_handlers();
// The signal received (SIGINT, SIGTERM, SIGHUP) or 0. Only code that stops
// on a non-zero answer may call it: seeing the signal lifts the deadline.
int interrupt_signal();

// While one lives, this rank waits where the other ranks will agree on a
// pending signal (an idle rank at the block boundary): no deadline.
class InterruptBoundary {
 public:
  InterruptBoundary();
  ~InterruptBoundary();
  InterruptBoundary(const InterruptBoundary&) = delete;
  InterruptBoundary& operator=(const InterruptBoundary&) = delete;

 private:
  int previous_;
};
// Async-signal-safe cleanup to run before an abrupt exit (one hook).
void set_abrupt_exit_hook(void (*hook)());
// Runs that hook (if any), for other abrupt exits (the watchdog's _Exit).
void run_abrupt_exit_hook();

}  // namespace cb
