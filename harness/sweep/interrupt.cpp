#include "harness/sweep/interrupt.hpp"

#include <csignal>

namespace cb {
namespace {

volatile std::sig_atomic_t g_signal = 0;

// The first signal asks for a clean stop at the next case boundary; a second
// one (the user insists, or a peer died and this rank waits forever) ends
// the process the default way.
extern "C" void record_signal(int sig) {
  if (g_signal != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = record_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return g_signal; }

}  // namespace cb
