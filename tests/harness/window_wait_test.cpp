// The window start's wait (harness/sweep/window_wait.hpp): a spinning rank
// must not sleep through a wait shorter than the guard, because on a shared
// machine its wake-up then lands in the sample.
// Whether a thread slept is read from its voluntary context switches
// (getrusage RUSAGE_THREAD: a blocking sleep counts one, a preemption or a
// sched_yield does not), so nothing here depends on the machine's load.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include "harness/sweep/clock_sync.hpp"
#include "harness/sweep/window_wait.hpp"

namespace cb {
namespace {

long voluntary_switches() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_nvcsw;
}

// Waits `ahead_ns` under `policy`; returns the voluntary switches it took
// and checks that the wait did not end before its target.
long switches_waiting(std::int64_t ahead_ns, WaitPolicy policy) {
  const std::int64_t target = monotonic_now_ns() + ahead_ns;
  const long before = voluntary_switches();
  wait_until_ns(target, policy);
  const long after = voluntary_switches();
  EXPECT_GE(monotonic_now_ns(), target);
  return after - before;
}

TEST(WindowWait, ASpinningRankDoesNotSleepThroughAShortWait) {
  constexpr std::int64_t ahead = 2'000'000;  // 2 ms: a one-host window and delay
  static_assert(ahead < kPollGuard_ns);
  EXPECT_EQ(switches_waiting(ahead, WaitPolicy::spin), 0);
  // The counter does see a sleep: yield and sleep sleep to the target.
  EXPECT_GE(switches_waiting(ahead, WaitPolicy::yield), 1);
  EXPECT_GE(switches_waiting(ahead, WaitPolicy::sleep), 1);
}

TEST(WindowWait, ALongWaitSleepsUpToTheGuardThenSpins) {
  const std::int64_t now = 1'000'000'000;
  for (WaitPolicy p : {WaitPolicy::spin, WaitPolicy::automatic}) {
    const WindowWait w = plan_window_wait(now, now + 3 * kPollGuard_ns, p);
    EXPECT_EQ(w.sleep_until_ns, now + 2 * kPollGuard_ns);
    EXPECT_TRUE(w.poll);
    const WindowWait short_wait = plan_window_wait(now, now + kPollGuard_ns / 2, p);
    EXPECT_LE(short_wait.sleep_until_ns, now);  // no sleep at all
    EXPECT_TRUE(short_wait.poll);
  }
  for (WaitPolicy p : {WaitPolicy::yield, WaitPolicy::sleep}) {
    const WindowWait s = plan_window_wait(now, now + kPollGuard_ns / 2, p);
    EXPECT_EQ(s.sleep_until_ns, now + kPollGuard_ns / 2);
    EXPECT_FALSE(s.poll);
  }
  // A target already passed: no sleep, and spinning ends at once.
  EXPECT_LE(plan_window_wait(now, now - 5, WaitPolicy::spin).sleep_until_ns, now);
}

TEST(WindowWait, APolledStartLateByMoreThanTheToleranceIsLate) {
  const std::int64_t t = 5'000'000'000;
  for (WaitPolicy p : {WaitPolicy::spin, WaitPolicy::automatic}) {
    EXPECT_FALSE(started_late(t, t, p));
    EXPECT_FALSE(started_late(t, t + kLateStart_ns, p));
    EXPECT_TRUE(started_late(t, t + kLateStart_ns + 1, p));
  }
  // A sleeping rank's wake-up is part of its samples.
  EXPECT_FALSE(started_late(t, t + 100 * kLateStart_ns, WaitPolicy::yield));
  EXPECT_FALSE(started_late(t, t + 100 * kLateStart_ns, WaitPolicy::sleep));
}

}  // namespace
}  // namespace cb
