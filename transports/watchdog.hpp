// The watchdog: a bound on every wait of this rank (a transport's step, a
// harness barrier or reduction, an IPC flag), so a peer that stopped without
// dying (SIGSTOP, a hung node, a livelock), which MPICH does not detect the
// way it detects a death, cannot make the run wait forever.
//
// Every wait loop (common/poll.hpp, mpi/wait.cpp) measures how long it has
// waited; past the timeout it throws WatchdogExpired, whose what() is one line
// naming this rank, the configuration, the step and the peer waited on. The
// harness keeps the finished rows and exits non-zero (harness/USAGE.md). Labels are
// per thread and set by whoever knows them: the harness names the
// configuration, the transports the step and the peer.
#pragma once

#include <stdexcept>
#include <string>

namespace cb {

struct WatchdogExpired : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Seconds a single wait may last; 0 (the default) = no bound.
void set_wait_timeout(double seconds);
double wait_timeout();

// Suspends the bound for this thread while it lives: a rank idling outside
// the measured group legitimately waits as long as the group measures.
class WatchdogOff {
 public:
  WatchdogOff();
  ~WatchdogOff();
  WatchdogOff(const WatchdogOff&) = delete;
  WatchdogOff& operator=(const WatchdogOff&) = delete;

 private:
  bool previous_;
};

// This process's rank in the launch, for the message.
void set_watchdog_rank(int world_rank);

// Sets a label for the lifetime of the object, restoring the previous one.
class WatchdogLabel {
 public:
  enum Kind { configuration };
  WatchdogLabel(Kind kind, std::string text);
  ~WatchdogLabel();
  WatchdogLabel(const WatchdogLabel&) = delete;
  WatchdogLabel& operator=(const WatchdogLabel&) = delete;

 private:
  Kind kind_;
  std::string previous_;
};

// Notes which step this rank is in: two stores, cheap enough for every step
// of a timed run. `what` must outlive the wait (a string literal); index < 0
// is left out of the message.
void note_wait_step(const char* what, long index = -1);

// Throws WatchdogExpired: `waited_s` seconds without progress, waiting on
// `peer` (free text: "rank 1", "one of ranks 1-3").
[[noreturn]] void watchdog_expired(double waited_s, const std::string& peer);

}  // namespace cb
