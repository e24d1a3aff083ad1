// cb-nfq-delay: holds every packet of one NFQUEUE for a fixed time, then
// accepts it, so that an iptables rule `-j NFQUEUE --queue-num Q` adds a
// per-packet one-way delay on kernels without netem (the testbed's links).
//
//   cb-nfq-delay --queue Q --delay-us D [--realtime]
//
// Runs in the foreground until SIGTERM/SIGINT; scripts/testbed.sh starts it
// inside the bridge namespace and kills it on `down`.
//
// Packets leave in arrival order (a fixed delay keeps FIFO order), so each
// wakeup accepts the whole due prefix with one batch verdict. The delay is
// measured from the moment the packet reaches this daemon; wakeup lateness is
// kept small with a 1 ns timer slack and, with --realtime, SCHED_FIFO (the
// daemon blocks in ppoll between packets, so it cannot starve the machine).
#include <arpa/inet.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <string>
#include <string_view>

namespace {

volatile std::sig_atomic_t stop_requested = 0;
void on_signal(int) { stop_requested = 1; }

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

struct Held {
  std::uint32_t id;
  std::int64_t due_ns;
};

struct State {
  std::int64_t delay_ns = 0;
  std::deque<Held> held;
};

int on_packet(nfq_q_handle*, nfgenmsg*, nfq_data* nfa, void* data) {
  auto* st = static_cast<State*>(data);
  const nfqnl_msg_packet_hdr* ph = nfq_get_msg_packet_hdr(nfa);
  if (ph == nullptr) return 0;
  st->held.push_back({ntohl(ph->packet_id), now_ns() + st->delay_ns});
  return 0;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "cb-nfq-delay: %s (usage: cb-nfq-delay --queue 0..65535 --delay-us 0..10000000 "
               "[--realtime])\n",
               why.c_str());
  std::exit(2);
}

long parse_number(std::string_view flag, const char* text, long lo, long hi) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
    usage(std::string(flag) + " '" + text + "' is not an integer in " + std::to_string(lo) +
          ".." + std::to_string(hi));
  return v;
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "cb-nfq-delay: %s failed: %s\n", what, std::strerror(errno));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  long queue = -1;
  long delay_us = -1;
  bool realtime = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--realtime") {
      realtime = true;
    } else if ((a == "--queue" || a == "--delay-us") && i + 1 < argc) {
      if (a == "--queue")
        queue = parse_number(a, argv[++i], 0, 65535);
      else
        delay_us = parse_number(a, argv[++i], 0, 10'000'000);
    } else {
      usage("unknown or incomplete argument '" + std::string(a) + "'");
    }
  }
  if (queue < 0 || delay_us < 0) usage("--queue and --delay-us are required");

  State st;
  st.delay_ns = delay_us * 1000;

  // Default timer slack (50 µs) would be a tenth of a 500 µs delay.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  if (realtime) {
    sched_param sp{};
    sp.sched_priority = 10;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) die("sched_setscheduler(SCHED_FIFO)");
  }

  nfq_handle* h = nfq_open();
  if (h == nullptr) die("nfq_open");
  nfq_q_handle* qh = nfq_create_queue(h, static_cast<std::uint16_t>(queue), &on_packet, &st);
  if (qh == nullptr) die("nfq_create_queue (is another daemon bound to this queue?)");
  // Only the packet id is needed: no payload is copied to user space.
  if (nfq_set_mode(qh, NFQNL_COPY_META, 0) < 0) die("nfq_set_mode");
  // Room for every packet in flight on a fast link plus its delay: a full
  // kernel queue would drop packets (TCP retransmits, timing outliers).
  if (nfq_set_queue_maxlen(qh, 65536) < 0) die("nfq_set_queue_maxlen");

  const int fd = nfq_fd(h);
  const int rcvbuf = 64 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf);
  const int one = 1;
  setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  // Signals are delivered only inside ppoll, so the flag is never missed.
  sigset_t blocked, during_poll;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigprocmask(SIG_BLOCK, &blocked, &during_poll);
  sigdelset(&during_poll, SIGTERM);
  sigdelset(&during_poll, SIGINT);

  alignas(8) static char buf[1 << 16];
  while (stop_requested == 0) {
    const std::int64_t now = now_ns();
    if (!st.held.empty() && st.held.front().due_ns <= now) {
      std::uint32_t last = 0;
      while (!st.held.empty() && st.held.front().due_ns <= now) {
        last = st.held.front().id;
        st.held.pop_front();
      }
      if (nfq_set_verdict_batch(qh, last, NF_ACCEPT) < 0) die("nfq_set_verdict_batch");
    }
    timespec timeout{};
    timespec* tp = nullptr;
    if (!st.held.empty()) {
      const std::int64_t wait = st.held.front().due_ns - now_ns();
      if (wait > 0) {
        timeout.tv_sec = wait / 1'000'000'000;
        timeout.tv_nsec = wait % 1'000'000'000;
      }
      tp = &timeout;
    }
    pollfd pfd{fd, POLLIN, 0};
    const int r = ppoll(&pfd, 1, tp, &during_poll);
    if (r < 0) {
      if (errno == EINTR) continue;
      die("ppoll");
    }
    if (r == 0) continue;
    for (;;) {
      const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
        if (errno == ENOBUFS) continue;
        die("recv");
      }
      nfq_handle_packet(h, buf, static_cast<int>(n));
    }
  }
  // Let what is still held go on rather than dropping it.
  if (!st.held.empty()) nfq_set_verdict_batch(qh, st.held.back().id, NF_ACCEPT);
  nfq_destroy_queue(qh);
  nfq_close(h);
  return 0;
}
