// cb-nfq-delay: holds every packet of one NFQUEUE until its link would have
// delivered it, then accepts it, so that an iptables rule in a bridge's
// namespace (`-j NFQUEUE --queue-num Q`) turns the bridge into a network with
// a one-way latency on kernels without netem (the testbed's links).
//
//   cb-nfq-delay --queue Q --delay-us D [--rate-bps R] [--realtime]
//
// Runs in the foreground until SIGTERM/SIGINT; scripts/testbed.sh starts it
// inside the bridge namespace and kills it on `down`.
//
// Each packet is delivered D after the last of its bytes left the sender.
// With --rate-bps, each bridge port is a link of R bits/s: the packet's frame
// is serialized on the sender's uplink (after what that port sent before) and
// on the receiver's downlink (cut-through, after what that port received
// before), so a message of n bytes takes D + n/R as on a switched network.
// tbf alone cannot give that: its token bucket (at least one 9000 B frame)
// lets the first bytes of every message through at once, which bends the
// alpha-beta line below ~10 KiB. The delay counts from the moment the packet
// reaches this daemon; wakeup lateness is kept small with a 1 ns timer slack
// and, with --realtime, SCHED_FIFO (the daemon blocks in ppoll between
// packets, so it cannot starve the machine).
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
#include <algorithm>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

volatile std::sig_atomic_t stop_requested = 0;
void on_signal(int) { stop_requested = 1; }

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

struct Held {
  std::int64_t due_ns;
  std::uint32_t id;
  bool operator>(const Held& o) const { return due_ns > o.due_ns || (due_ns == o.due_ns && id > o.id); }
};

struct State {
  std::int64_t delay_ns = 0;
  double ns_per_byte = 0;  // 0: no serialization
  // When each bridge port's uplink (from its host) and downlink (to its host)
  // is free again, by ifindex.
  std::unordered_map<std::uint32_t, std::int64_t> uplink_free, downlink_free;
  std::priority_queue<Held, std::vector<Held>, std::greater<>> held;
};

// Ethernet header: tbf and a real link count the frame, not the IP packet.
constexpr std::int64_t kEthernetHeader = 14;

int on_packet(nfq_q_handle*, nfgenmsg*, nfq_data* nfa, void* data) {
  auto* st = static_cast<State*>(data);
  const nfqnl_msg_packet_hdr* ph = nfq_get_msg_packet_hdr(nfa);
  if (ph == nullptr) return 0;
  const std::int64_t now = now_ns();
  std::int64_t sent = now;  // when its last byte left the sender
  if (st->ns_per_byte > 0) {
    unsigned char* ip = nullptr;
    const int got = nfq_get_payload(nfa, &ip);
    // IPv4 total length (bytes 2-3); the queue copies only the header's start.
    const std::int64_t ip_len = got >= 4 ? (std::int64_t{ip[2]} << 8 | ip[3]) : 0;
    const auto ser = static_cast<std::int64_t>(
        static_cast<double>(ip_len + kEthernetHeader) * st->ns_per_byte);
    std::uint32_t in = nfq_get_physindev(nfa), out = nfq_get_physoutdev(nfa);
    if (in == 0) in = nfq_get_indev(nfa);
    if (out == 0) out = nfq_get_outdev(nfa);
    std::int64_t& up = st->uplink_free[in];
    up = std::max(up, now) + ser;
    std::int64_t& down = st->downlink_free[out];
    down = std::max(down + ser, up);
    sent = down;
  }
  st->held.push({sent + st->delay_ns, ntohl(ph->packet_id)});
  return 0;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "cb-nfq-delay: %s (usage: cb-nfq-delay --queue 0..65535 --delay-us 0..10000000 "
               "[--rate-bps 1000000..100000000000] [--realtime])\n",
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

struct Flags {
  long queue = -1;
  long delay_us = -1;
  long rate_bps = 0;  // 0: no serialization
  bool realtime = false;
};

Flags parse_flags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--realtime") {
      f.realtime = true;
    } else if ((a == "--queue" || a == "--delay-us" || a == "--rate-bps") && i + 1 < argc) {
      if (a == "--queue")
        f.queue = parse_number(a, argv[++i], 0, 65535);
      else if (a == "--delay-us")
        f.delay_us = parse_number(a, argv[++i], 0, 10'000'000);
      else
        f.rate_bps = parse_number(a, argv[++i], 1'000'000, 100'000'000'000);
    } else {
      usage("unknown or incomplete argument '" + std::string(a) + "'");
    }
  }
  if (f.queue < 0 || f.delay_us < 0) usage("--queue and --delay-us are required");
  return f;
}

// Wakeups as close to each packet's due time as the kernel allows.
void set_timing(bool realtime) {
  // Default timer slack (50 µs) would be a tenth of a 500 µs delay.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  if (realtime) {
    sched_param sp{};
    sp.sched_priority = 10;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) die("sched_setscheduler(SCHED_FIFO)");
  }
}

// Binds queue `f.queue` with on_packet(st) as its callback.
nfq_q_handle* open_queue(nfq_handle* h, const Flags& f, State& st) {
  nfq_q_handle* qh = nfq_create_queue(h, static_cast<std::uint16_t>(f.queue), &on_packet, &st);
  if (qh == nullptr) die("nfq_create_queue (is another daemon bound to this queue?)");
  // Only the id (and, to serialize, the IP header's length field) is needed.
  const bool serialize = f.rate_bps > 0;
  if (nfq_set_mode(qh, serialize ? NFQNL_COPY_PACKET : NFQNL_COPY_META, serialize ? 4 : 0) < 0)
    die("nfq_set_mode");
  // Room for every packet in flight on a fast link plus its delay: a full
  // kernel queue would drop packets (TCP retransmits, timing outliers).
  if (nfq_set_queue_maxlen(qh, 65536) < 0) die("nfq_set_queue_maxlen");
  const int fd = nfq_fd(h);
  const int rcvbuf = 64 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf);
  const int one = 1;
  setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);
  return qh;
}

// Installs on_signal for SIGTERM and SIGINT and blocks both; returns the mask
// for ppoll, under which they are delivered, so the flag is never missed.
sigset_t stop_signals_during_poll() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  sigset_t blocked, during_poll;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigprocmask(SIG_BLOCK, &blocked, &during_poll);
  sigdelset(&during_poll, SIGTERM);
  sigdelset(&during_poll, SIGINT);
  return during_poll;
}

// Accepts every held packet that is due.
void release_due(nfq_q_handle* qh, State& st) {
  const std::int64_t now = now_ns();
  while (!st.held.empty() && st.held.top().due_ns <= now) {
    if (nfq_set_verdict(qh, st.held.top().id, NF_ACCEPT, 0, nullptr) < 0) die("nfq_set_verdict");
    st.held.pop();
  }
}

// Hands every packet the kernel has queued to on_packet.
void read_packets(nfq_handle* h, int fd) {
  alignas(8) static char buf[1 << 16];
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
      if (errno == ENOBUFS) continue;
      die("recv");
    }
    nfq_handle_packet(h, buf, static_cast<int>(n));
  }
}

// Until a stop signal: release what is due, sleep until the next due time or
// a packet, take the packets in.
void serve(nfq_handle* h, nfq_q_handle* qh, State& st, const sigset_t& during_poll) {
  const int fd = nfq_fd(h);
  while (stop_requested == 0) {
    release_due(qh, st);
    timespec timeout{};
    timespec* tp = nullptr;
    if (!st.held.empty()) {
      const std::int64_t wait = st.held.top().due_ns - now_ns();
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
    if (r > 0) read_packets(h, fd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse_flags(argc, argv);
  State st;
  st.delay_ns = f.delay_us * 1000;
  if (f.rate_bps > 0) st.ns_per_byte = 8e9 / static_cast<double>(f.rate_bps);
  set_timing(f.realtime);
  nfq_handle* h = nfq_open();
  if (h == nullptr) die("nfq_open");
  nfq_q_handle* qh = open_queue(h, f, st);
  const sigset_t during_poll = stop_signals_during_poll();
  serve(h, qh, st, during_poll);
  // Let what is still held go on rather than dropping it.
  for (; !st.held.empty(); st.held.pop()) nfq_set_verdict(qh, st.held.top().id, NF_ACCEPT, 0, nullptr);
  nfq_destroy_queue(qh);
  nfq_close(h);
  return 0;
}
