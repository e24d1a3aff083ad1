// How a rank waits for its window to open under the window start
// (--start window, timing.cpp), and for its delay under an arrival pattern.
//
// A rank that sleeps through the wait hands its core to whatever else is
// runnable, and on a shared machine the kernel may let that task finish its
// slice before the woken rank runs again: on 2 shared cores with other work
// running, ranks that slept until their window started the collective
// 0.1-3 ms late, and their samples measured the wake-up, not the
// collective (a 256 KiB allreduce at p = 2 timed 170-1800 µs against 34 µs
// from a barrier, whose waiters poll). So a rank that may poll (spin,
// yield) sleeps only the part of a wait that lies more than kPollGuard_ns
// before the target and polls the rest as its policy polls everywhere else
// (spin: back to back; yield: sched_yield between reads, which keeps it
// runnable while a rank still finishing its sample gets the core). Only
// WaitPolicy::sleep (the testbed: its links run on the ranks' cores) sleeps
// to the target itself.
#pragma once

#include <cstdint>

#include "transports/contract/transport.hpp"

namespace cb {

// Polling starts this long before the target, NANOSECONDS: longer than a
// scheduler slice (a few ms), so a rank whose sleep ended late still polls
// before its window opens.
inline constexpr std::int64_t kPollGuard_ns = 10'000'000;

struct WindowWait {
  // Sleep (CLOCK_MONOTONIC, absolute) until this time, NANOSECONDS; a time at
  // or before `now` means no sleep.
  std::int64_t sleep_until_ns = 0;
  // Then poll until the target (false: the sleep reaches the target).
  bool poll = false;
};

// A rank that polled its wait and still started more than this after its
// target, NANOSECONDS, lost its core while waiting (the scheduler ran other
// work, or the VM's vCPU was held): a polled wait otherwise ends within a
// microsecond. Its sample did not start at the agreed time, and under a
// pattern its arrival was not the requested one, so the window start drops
// it as it drops a rank that reached its wait late (timing.cpp).
inline constexpr std::int64_t kLateStart_ns = 20'000;

// Whether a start at `started_ns` for `target_ns` is late that way. Never
// under WaitPolicy::sleep, whose wake-up (tens of µs) is part of every sample
// by choice: the testbed's links take milliseconds.
bool started_late(std::int64_t target_ns, std::int64_t started_ns, WaitPolicy policy);

// The wait for `target_ns` from `now_ns` (both CLOCK_MONOTONIC ns) under a
// resolved `policy` (automatic counts as spin).
WindowWait plan_window_wait(std::int64_t now_ns, std::int64_t target_ns, WaitPolicy policy);

// Waits until target_ns (CLOCK_MONOTONIC ns) as plan_window_wait says; a
// signal does not cut the sleep short.
void wait_until_ns(std::int64_t target_ns, WaitPolicy policy);

}  // namespace cb
