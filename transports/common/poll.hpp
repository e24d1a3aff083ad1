// Polling with a WaitPolicy, for any transport that waits on completions it
// can test without blocking (MPI requests, shared-memory flags).
//
// spin:  test back to back (lowest latency; only when every rank has a core).
// yield: test, then sched_yield(): a rank that waits hands its core to a rank
//        that has work, which is what keeps oversubscribed runs from stalling.
// sleep: test, then sleep kSleepQuantum: the waiter costs almost no CPU (used
//        for ranks idling outside the measured sub-communicator).
//
// With a watchdog timeout set (watchdog.hpp), a wait that lasts longer throws
// WatchdogExpired naming `peer()`, the rank(s) waited on.
#pragma once

#include <sched.h>

#include <chrono>
#include <string>
#include <thread>

#include "transports/watchdog.hpp"
#include "transports/contract/transport.hpp"

namespace cb {

inline constexpr std::chrono::microseconds kSleepQuantum{50};

// Calls done() until it returns true, giving the core away between calls as
// `policy` says. WaitPolicy::automatic must be resolved before (it spins).
// peer() is called only when the watchdog expires.
template <class Done, class Peer>
void poll_until(Done&& done, WaitPolicy policy, Peer&& peer) {
  using Clock = std::chrono::steady_clock;
  const double limit_s = wait_timeout();
  Clock::time_point start{};
  unsigned polls = 0;
  while (!done()) {
    switch (policy) {
      case WaitPolicy::yield:
        sched_yield();
        break;
      case WaitPolicy::sleep:
        std::this_thread::sleep_for(kSleepQuantum);
        break;
      case WaitPolicy::automatic:
      case WaitPolicy::spin:
        break;
    }
    // The clock is read every 256 polls only: a spinning wait stays a tight loop.
    if (limit_s <= 0 || (++polls & 255u) != 1) continue;
    const Clock::time_point now = Clock::now();
    if (polls == 1) {
      start = now;
      continue;
    }
    const double waited = std::chrono::duration<double>(now - start).count();
    if (waited > limit_s) watchdog_expired(waited, peer());
  }
}

template <class Done>
void poll_until(Done&& done, WaitPolicy policy) {
  poll_until(std::forward<Done>(done), policy, [] { return std::string("a peer"); });
}

}  // namespace cb
