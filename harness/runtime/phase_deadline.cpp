#include "harness/runtime/phase_deadline.hpp"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "harness/runtime/exit_status.hpp"
#include "harness/runtime/world.hpp"
#include "transports/contract/interrupt.hpp"
#include "transports/watchdog.hpp"

namespace cb {

struct PhaseDeadline::State {
  const char* phase = "";
  double seconds = 0;
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::thread thread;
};

namespace {

// The rank before MPI can say it: the launcher's PMI_RANK (Hydra exports it).
const char* launch_rank() {
  const char* r = std::getenv("PMI_RANK");
  return r != nullptr ? r : "0";
}

}  // namespace

PhaseDeadline::PhaseDeadline(const char* phase) {
  const double seconds = wait_timeout();
  if (!(seconds > 0)) return;
  state_ = std::make_unique<State>();
  State* s = state_.get();
  s->phase = phase;
  s->seconds = seconds;
  s->thread = std::thread([s] {
    std::unique_lock lock(s->mutex);
    if (s->cv.wait_for(lock, std::chrono::duration<double>(s->seconds), [s] { return s->done; }))
      return;
    // The phase is stuck in a call that never returns while a peer is
    // stopped: nothing in this process can unwind it, so end it here.
    std::fprintf(stderr,
                 "collbench: error: rank %s (pid %d): watchdog: waited %.0f s (--timeout) in "
                 "start-up (%s) for the other ranks; a peer is stopped or hung\n",
                 launch_rank(), static_cast<int>(::getpid()), s->seconds, s->phase);
    std::fflush(stderr);
    run_abrupt_exit_hook();
    announce_exit_status(kExitWatchdog);
    std::_Exit(kExitWatchdog);
  });
}

PhaseDeadline::~PhaseDeadline() {
  if (!state_) return;
  {
    std::lock_guard lock(state_->mutex);
    state_->done = true;
  }
  state_->cv.notify_one();
  state_->thread.join();
}

}  // namespace cb
