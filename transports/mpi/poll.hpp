// Polling with a WaitPolicy, for any transport that waits on completions it
// can test without blocking (MPI requests, shared-memory flags).
//
// spin:  test back to back (lowest latency; only when every rank has a core).
// yield: test, then sched_yield(): a rank that waits hands its core to a rank
//        that has work, which is what keeps oversubscribed runs from stalling.
// sleep: test, then sleep kSleepQuantum: the waiter costs almost no CPU (used
//        for ranks idling outside the measured sub-communicator).
#pragma once

#include <sched.h>

#include <chrono>
#include <thread>

#include "transports/transport.hpp"

namespace cb {

inline constexpr std::chrono::microseconds kSleepQuantum{50};

// Calls done() until it returns true, giving the core away between calls as
// `policy` says. WaitPolicy::automatic must be resolved before (it spins).
template <class Done>
void poll_until(Done&& done, WaitPolicy policy) {
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
  }
}

}  // namespace cb
