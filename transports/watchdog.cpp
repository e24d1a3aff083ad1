#include "transports/watchdog.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <utility>

namespace cb {
namespace {

double g_timeout_s = 0;
thread_local bool t_off = false;
int g_rank = -1;
thread_local std::string t_configuration;
thread_local const char* t_step = nullptr;
thread_local long t_step_index = -1;

std::string& label(WatchdogLabel::Kind) { return t_configuration; }

}  // namespace

void set_wait_timeout(double seconds) { g_timeout_s = seconds; }
double wait_timeout() { return t_off ? 0 : g_timeout_s; }

WatchdogOff::WatchdogOff() : previous_(std::exchange(t_off, true)) {}
WatchdogOff::~WatchdogOff() { t_off = previous_; }
void set_watchdog_rank(int world_rank) { g_rank = world_rank; }

WatchdogLabel::WatchdogLabel(Kind kind, std::string text)
    : kind_(kind), previous_(std::exchange(label(kind), std::move(text))) {}

WatchdogLabel::~WatchdogLabel() { label(kind_) = std::move(previous_); }

void note_wait_step(const char* what, long index) {
  t_step = what;
  t_step_index = index;
}

void watchdog_expired(double waited_s, const std::string& peer) {
  throw WatchdogExpired(fmt::format(
      "rank {} (pid {}): watchdog: waited {:.0f} s (--timeout) in {}, {}, for {}; a peer is "
      "stopped or hung",
      g_rank, ::getpid(), waited_s,
      t_configuration.empty() ? std::string("setup") : t_configuration,
      t_step == nullptr       ? std::string("setup")
      : t_step_index < 0      ? std::string(t_step)
                              : fmt::format("{} {}", t_step, t_step_index),
      peer));
}

}  // namespace cb
