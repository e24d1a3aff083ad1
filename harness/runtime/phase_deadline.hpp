// The watchdog for phases its wait loops do not reach.
//
// The watchdog (transports/watchdog.hpp) bounds every wait collbench polls
// itself. Start-up waits inside the MPI library instead: MPI_Init (the PMI
// barrier), MPI_Comm_split for a rank group, the IPC set-up's exchange of
// segment names. A peer stopped there (SIGSTOP 0.1 s after launch) once made
// a run with --timeout 5 wait for ever without a word.
//
// PhaseDeadline bounds such a phase by the same --timeout (wait_timeout(),
// seconds; 0 = no bound): a helper thread waits that long for the phase to
// end, and if it has not, prints the watchdog's one line for this rank
// ("rank 0 (pid N): watchdog: waited 5 s (--timeout) in start-up (MPI_Init)
// ...") and ends the process with status 5 (kExitWatchdog), the abrupt-exit
// hook run first (interrupt.hpp: shared-memory names unlinked).
#pragma once

#include <memory>

namespace cb {

class PhaseDeadline {
 public:
  // `phase` names the phase in the message ("MPI_Init"); a string literal.
  explicit PhaseDeadline(const char* phase);
  ~PhaseDeadline();
  PhaseDeadline(const PhaseDeadline&) = delete;
  PhaseDeadline& operator=(const PhaseDeadline&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;  // null: no bound (--timeout 0)
};

}  // namespace cb
