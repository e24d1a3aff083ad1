#include "transports/contract/interrupt.hpp"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

namespace cb {
namespace {

volatile std::sig_atomic_t g_signal = 0;
// Set once code that acts on the signal has seen it (interrupt_signal()),
// or while a rank waits where the others will agree to stop
// (InterruptBoundary): then the deadline below does not apply.
volatile std::sig_atomic_t g_seen = 0;
volatile std::sig_atomic_t g_boundary = 0;
std::atomic<long long> g_first_ns{0};
std::atomic<long long> g_first_cpu_ns{0};
std::atomic<void (*)()> g_hook{nullptr};
static_assert(std::atomic<long long>::is_always_lock_free);

long long clock_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);  // async-signal-safe
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}
long long monotonic_ns() { return clock_ns(CLOCK_MONOTONIC); }

constexpr long long kSameSignalNs = 1000000000LL;
// How long the first signal may wait for a check before the process ends
// anyway: long setup phases (IPC setup, communicator creation, big
// allocations, the simulator at huge p, pricing a map cell) have no check.
constexpr unsigned kFirstSignalDeadline_s = 1;
// ... of work: the deadline counts CPU time this process spent since the
// signal, so a rank starved of cores on a loaded machine (which would reach
// its check, given the CPU) is not cut short; a rank blocked without using
// the CPU is stopped after kBlockedDeadlineNs of wall time all the same.
constexpr long long kUncheckedCpuNs = 500000000LL;
constexpr long long kBlockedDeadlineNs = 5000000000LL;

// write(2) of a NUL-terminated string and of a small number: both
// async-signal-safe, unlike printf.
void say(const char* text) {
  std::size_t n = 0;
  while (text[n] != '\0') ++n;
  while (n > 0) {
    const ssize_t w = ::write(2, text, n);
    if (w <= 0) return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}
void say_number(int v) {
  char digits[12];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0 && n < 11);
  char text[13];
  for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
  text[n] = '\0';
  say(text);
}

// SIGALRM, kFirstSignalDeadline_s after the first signal: nothing has acted
// on it, so this rank is in a phase without checks. It stops now, as a
// second signal would: rows finished so far stay in FILE.partial (each is
// written whole as it finishes), the abrupt-exit hook unlinks what must not
// stay behind, and the status is the signal's.
extern "C" void first_signal_deadline(int) {
  if (g_signal == 0 || g_seen != 0) return;
  const long long cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - g_first_cpu_ns.load();
  const long long wall = monotonic_ns() - g_first_ns.load();
  if (g_boundary != 0 || (cpu < kUncheckedCpuNs && wall < kBlockedDeadlineNs)) {
    ::alarm(1);  // look again: a boundary may be left without a stop
    return;
  }
  say("collbench: interrupted (signal ");
  say_number(g_signal);
  say(") during a phase without checks (setup, allocation, simulation); stopped at once, "
      "finished rows kept\n");
  if (void (*hook)() = g_hook.load()) hook();
  ::_exit(128 + g_signal);
}

extern "C" void record_signal(int sig) {
  const long long now = monotonic_ns();
  if (g_signal == 0) {
    g_first_ns.store(now);
    g_first_cpu_ns.store(clock_ns(CLOCK_PROCESS_CPUTIME_ID));
    g_signal = sig;
    ::alarm(kFirstSignalDeadline_s);  // async-signal-safe
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
  struct sigaction deadline {};
  deadline.sa_handler = first_signal_deadline;
  sigemptyset(&deadline.sa_mask);
  deadline.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &deadline, nullptr);
}

int interrupt_signal() {
  const int sig = g_signal;
  if (sig != 0) g_seen = 1;  // the caller acts on it: no deadline
  return sig;
}

InterruptBoundary::InterruptBoundary() : previous_(g_boundary) { g_boundary = 1; }
InterruptBoundary::~InterruptBoundary() { g_boundary = previous_; }

void set_abrupt_exit_hook(void (*hook)()) { g_hook.store(hook); }

void run_abrupt_exit_hook() {
  if (void (*hook)() = g_hook.load()) hook();
}

}  // namespace cb
