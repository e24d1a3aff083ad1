// The window start's wait (harness/sweep/window_wait.hpp): a spinning rank
// must not sleep through a wait shorter than the guard, because on a shared
// machine its wake-up then lands in the sample; and a rank with a core spins
// that part whatever the collective's policy, a busy machine's yield too.
// Whether a thread slept is read from its voluntary context switches
// (getrusage RUSAGE_THREAD: a blocking sleep counts one, a preemption or a
// sched_yield does not), so nothing here depends on the machine's load.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdlib>
#include <string>

#include "harness/runtime/group.hpp"
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

// The decision itself: a policy resolved to yield (auto on a busy machine,
// the case that used to sleep to the window and time the wake-up) or to
// sleep still spins the window's last part while each rank has a core; only
// ranks outnumbering cores keep the resolved policy for the wait.
TEST(WindowWait, ARankWithACoreSpinsItsWindowWhateverTheWaitPolicy) {
  for (WaitPolicy p : {WaitPolicy::spin, WaitPolicy::yield, WaitPolicy::sleep,
                       WaitPolicy::automatic})
    EXPECT_EQ(window_wait_policy(p, false), WaitPolicy::spin);
  for (WaitPolicy p : {WaitPolicy::spin, WaitPolicy::yield, WaitPolicy::sleep})
    EXPECT_EQ(window_wait_policy(p, true), p);

  // `--wait auto` as a busy machine resolves it (COLLBENCH_WAIT forces the
  // resolution, so the load average does not decide the test): the
  // collective yields, the window's wait spins, and a short wait does not
  // sleep at all.
  const char* saved = std::getenv("COLLBENCH_WAIT");
  const std::string restore = saved ? saved : "";
  setenv("COLLBENCH_WAIT", "yield", 1);
  const WaitPolicy resolved = resolve_wait_policy(WaitPolicy::automatic, false);
  if (saved) setenv("COLLBENCH_WAIT", restore.c_str(), 1); else unsetenv("COLLBENCH_WAIT");
  ASSERT_EQ(resolved, WaitPolicy::yield);
  const WaitPolicy window = window_wait_policy(resolved, false);
  const std::int64_t now = 1'000'000'000;
  const WindowWait w = plan_window_wait(now, now + 3 * kPollGuard_ns, window);
  EXPECT_EQ(w.sleep_until_ns, now + 2 * kPollGuard_ns);
  EXPECT_TRUE(w.poll);
  EXPECT_EQ(switches_waiting(2'000'000, window), 0);
  // Such a start late by more than the tolerance lost its core: dropped.
  EXPECT_TRUE(started_late(now, now + kLateStart_ns + 1, window));
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
