#include "harness/sweep/window_wait.hpp"

#include <time.h>

#include <cerrno>

#include "harness/sweep/clock_sync.hpp"

namespace cb {
namespace {

void sleep_until(std::int64_t t_ns) {
  const timespec ts{static_cast<time_t>(t_ns / 1'000'000'000),
                    static_cast<long>(t_ns % 1'000'000'000)};
  // Absolute time: a signal (EINTR) just resumes the same sleep.
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace

WindowWait plan_window_wait(std::int64_t now_ns, std::int64_t target_ns, WaitPolicy policy) {
  if (policy != WaitPolicy::spin && policy != WaitPolicy::automatic) return {target_ns, false};
  const std::int64_t sleep_to = target_ns - kPollGuard_ns;
  return {sleep_to > now_ns ? sleep_to : now_ns, true};
}

bool started_late(std::int64_t target_ns, std::int64_t started_ns, WaitPolicy policy) {
  return (policy == WaitPolicy::spin || policy == WaitPolicy::automatic) &&
         started_ns - target_ns > kLateStart_ns;
}

void wait_until_ns(std::int64_t target_ns, WaitPolicy policy) {
  const WindowWait w = plan_window_wait(monotonic_now_ns(), target_ns, policy);
  if (monotonic_now_ns() < w.sleep_until_ns) sleep_until(w.sleep_until_ns);
  if (!w.poll) return;
  while (monotonic_now_ns() < target_ns) {
  }
}

}  // namespace cb
