#include "harness/sweep/interrupt.hpp"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

namespace cb {
namespace {

volatile std::sig_atomic_t g_signal = 0;
std::atomic<long long> g_first_ns{0};
std::atomic<void (*)()> g_hook{nullptr};
static_assert(std::atomic<long long>::is_always_lock_free);

long long monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

constexpr long long kSameSignalNs = 1000000000LL;

extern "C" void record_signal(int sig) {
  const long long now = monotonic_ns();
  if (g_signal == 0) {
    g_first_ns.store(now);
    g_signal = sig;
    return;
  }
  if (now - g_first_ns.load() < kSameSignalNs) return;  // the same Ctrl-C, delivered twice
  if (void (*hook)() = g_hook.load()) hook();
  ::_exit(128 + g_signal);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

int interrupt_signal() { return g_signal; }

void set_abrupt_exit_hook(void (*hook)()) { g_hook.store(hook); }

void run_abrupt_exit_hook() {
  if (void (*hook)() = g_hook.load()) hook();
}

}  // namespace cb
