// How a rank waits for its window to open under the window start
// (--start window, timing.cpp), and for its delay under an arrival pattern.
//
// A rank that sleeps through the wait hands its core to whatever else is
// runnable, and on a shared machine the kernel may let that task finish its
// slice before the woken rank runs again: on 2 shared cores with other work
// running, ranks that slept until their window started the collective
// 0.1-20 ms late, and their samples timed the wake-up, not the collective
// (a 256 KiB allreduce at p = 2 measured 1-7 ms against 34-40 µs from a
// barrier in the same minutes). So under WaitPolicy::spin (a core per rank)
// a rank sleeps only the part of a wait more than kPollGuard_ns before the
// target and spins the rest, and a rank that spun and still started late lost
// its core: its sample is dropped (started_late). Under yield (oversubscribed,
// or auto on a busy machine) and sleep (the testbed) a rank sleeps to the
// target, leaving the cores to ranks still working; polling with sched_yield
// instead measured worse, not better, on the shared machine.
#pragma once

#include <cstdint>

#include "transports/contract/transport.hpp"

namespace cb {

// Spinning starts this long before the target, NANOSECONDS: longer than a
// scheduler slice (a few ms), so a rank whose sleep ended late still spins
// before its window opens.
inline constexpr std::int64_t kPollGuard_ns = 10'000'000;

struct WindowWait {
  // Sleep (CLOCK_MONOTONIC, absolute) until this time, NANOSECONDS; a time at
  // or before `now` means no sleep.
  std::int64_t sleep_until_ns = 0;
  // Then spin until the target (false: the sleep reaches the target).
  bool poll = false;
};

// A rank that spun its wait and still started more than this after its
// target, NANOSECONDS, lost its core while waiting (the scheduler ran other
// work, or the VM's vCPU was held): a spun wait otherwise ends within a
// microsecond. Its sample did not start at the agreed time, and under a
// pattern its arrival was not the requested one, so the window start drops
// it as it drops a rank that reached its wait late (timing.cpp).
inline constexpr std::int64_t kLateStart_ns = 20'000;

// Whether a start at `started_ns` for `target_ns` is late that way: only
// under spin (automatic counts as spin). A sleeping rank's wake-up is part
// of its samples by choice: ranks outnumber cores, or the testbed's links
// take milliseconds.
bool started_late(std::int64_t target_ns, std::int64_t started_ns, WaitPolicy policy);

// The wait for `target_ns` from `now_ns` (both CLOCK_MONOTONIC ns) under a
// resolved `policy` (automatic counts as spin).
WindowWait plan_window_wait(std::int64_t now_ns, std::int64_t target_ns, WaitPolicy policy);

// Waits until target_ns (CLOCK_MONOTONIC ns) as plan_window_wait says; a
// signal does not cut the sleep short.
void wait_until_ns(std::int64_t target_ns, WaitPolicy policy);

}  // namespace cb
