#include "transports/ipc/shm/segment.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace cb::ipc {
namespace {

std::runtime_error sys_error(const std::string& call, const std::string& what) {
  return std::runtime_error(fmt::format("{} {}: {}", call, what, std::strerror(errno)));
}

// ---- names still linked, for the exit and signal paths ---------------------
// A fixed table of plain char arrays: the signal handler may only touch
// lock-free atomics and async-signal-safe calls (unlink, sigaction, raise).
constexpr int kMaxLinked = 64;
constexpr int kSlotFree = 0, kSlotWriting = 1, kSlotReady = 2;
struct LinkedSlot {
  std::atomic<int> state{kSlotFree};
  char path[128] = {};  // "/dev/shm/collbench-..."
};
LinkedSlot g_linked[kMaxLinked];

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS};
struct sigaction g_previous[std::size(kCleanupSignals)];

}  // namespace

void unlink_linked_segments() {
  for (auto& slot : g_linked)
    if (slot.state.load(std::memory_order_acquire) == kSlotReady) ::unlink(slot.path);
}

namespace {

// A handler installed before ours that returns (the harness records a
// Ctrl-C and stops at the next configuration) means the process goes on:
// the name must stay until the peers have mapped it, or they fail setup.
bool chains_to_handler(const struct sigaction& previous, int sig) {
  const bool may_continue = sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
  if (!may_continue) return false;
  if (previous.sa_flags & SA_SIGINFO) return previous.sa_sigaction != nullptr;
  return previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN;
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i) {
    if (kCleanupSignals[i] != sig) continue;
    const struct sigaction& previous = g_previous[i];
    if (chains_to_handler(previous, sig)) {
      if (previous.sa_flags & SA_SIGINFO)
        previous.sa_sigaction(sig, info, context);
      else
        previous.sa_handler(sig);
      return;
    }
    unlink_linked_segments();
    // Restore whatever was installed before us (the default action) and
    // deliver the signal again so the process ends as it would have.
    ::sigaction(sig, &previous, nullptr);
    ::raise(sig);
    return;
  }
}

void install_cleanup_handlers() {
  std::atexit(unlink_linked_segments);
  for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i) {
    struct sigaction action {};
    action.sa_sigaction = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    ::sigaction(kCleanupSignals[i], &action, &g_previous[i]);
  }
}

void register_linked(const std::string& name) {
  const std::string path = "/dev/shm/" + name;
  for (auto& slot : g_linked) {
    int expected = kSlotFree;
    if (!slot.state.compare_exchange_strong(expected, kSlotWriting)) continue;
    std::snprintf(slot.path, sizeof slot.path, "%s", path.c_str());
    slot.state.store(kSlotReady, std::memory_order_release);
    return;
  }
  throw std::runtime_error(
      fmt::format("shared memory: more than {} segments linked at once", kMaxLinked));
}

void unregister_linked(const std::string& name) {
  const std::string path = "/dev/shm/" + name;
  for (auto& slot : g_linked)
    if (slot.state.load(std::memory_order_acquire) == kSlotReady && path == slot.path) {
      slot.state.store(kSlotFree, std::memory_order_release);
      return;
    }
}

// Start time of a process in clock ticks since boot (/proc/<pid>/stat field
// 22); 0 when the process does not exist.
unsigned long long process_start_ticks(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!in || !std::getline(in, line)) return 0;
  // Field 2 (comm) may contain spaces and parentheses: fields resume after
  // the last ')'. Field 3 is the first one after it, so 22 is the 20th.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return std::stoull(field);
  return 0;
}

std::uint64_t random_u64() {
  std::uint64_t v = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&v);
  std::size_t got = 0;
  while (got < sizeof v) {
    const ssize_t n = ::getrandom(bytes + got, sizeof v - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw sys_error("getrandom", "for a segment name");
    got += static_cast<std::size_t>(n);
  }
  return v;
}

// The last field is random, so another local user cannot create our names in
// advance and make the run fail (peers learn the names from the setup's
// exchange of segment cards, never by guessing).
std::string next_unique_name() {
  // Not cached: a forked child must name its segments after itself.
  const pid_t pid = ::getpid();
  return fmt::format("{}{}-{}-{}", kSegmentPrefix, pid, process_start_ticks(pid), random_u64());
}

void* map_fd(int fd, std::size_t bytes, int prot, const std::string& name) {
  // MAP_POPULATE: take every page fault now, at setup, not in a timed run.
  void* p = ::mmap(nullptr, bytes, prot, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) throw sys_error("mmap", fmt::format("of /dev/shm/{} ({} bytes)", name, bytes));
  return p;
}

}  // namespace

ShmSegment ShmSegment::create(std::size_t bytes) {
  static std::once_flag once;
  std::call_once(once, [] {
    sweep_stale_segments();
    install_cleanup_handlers();
  });
  ShmSegment seg;
  seg.size_ = bytes == 0 ? 1 : bytes;  // mmap refuses length 0
  // A name already taken (by chance, or planted) is skipped for a fresh one.
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    seg.name_ = next_unique_name();
    fd = ::shm_open(("/" + seg.name_).c_str(), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw sys_error("shm_open", "/dev/shm/" + seg.name_);
  // Registered before anything else can fail, so every later error path
  // (and a signal arriving now) removes it.
  seg.owner_ = true;
  seg.linked_ = true;
  register_linked(seg.name_);
  if (::ftruncate(fd, static_cast<off_t>(seg.size_)) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    throw sys_error("ftruncate", fmt::format("/dev/shm/{} to {} bytes", seg.name_, seg.size_));
  }
  try {
    seg.data_ = static_cast<std::byte*>(map_fd(fd, seg.size_, PROT_READ | PROT_WRITE, seg.name_));
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return seg;
}

ShmSegment ShmSegment::open_read_only(const std::string& name, std::size_t bytes) {
  ShmSegment seg;
  seg.name_ = name;
  seg.size_ = bytes == 0 ? 1 : bytes;
  const int fd = ::shm_open(("/" + name).c_str(), O_RDONLY, 0);
  if (fd < 0) throw sys_error("shm_open", "/dev/shm/" + name + " (a peer's segment)");
  try {
    seg.data_ = static_cast<std::byte*>(map_fd(fd, seg.size_, PROT_READ, name));
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return seg;
}

ShmSegment::ShmSegment(ShmSegment&& other) noexcept { *this = std::move(other); }

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    name_ = std::move(other.name_);
    owner_ = std::exchange(other.owner_, false);
    linked_ = std::exchange(other.linked_, false);
  }
  return *this;
}

ShmSegment::~ShmSegment() { release(); }

void ShmSegment::unlink() {
  if (!owner_ || !linked_) return;
  ::shm_unlink(("/" + name_).c_str());
  unregister_linked(name_);
  linked_ = false;
}

void ShmSegment::release() {
  unlink();
  if (data_ != nullptr) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  owner_ = false;
}

bool parse_segment_name(const std::string& name, SegmentOwner& owner) {
  const std::string prefix = kSegmentPrefix;
  if (name.rfind(prefix, 0) != 0) return false;
  long long pid = 0;
  unsigned long long start = 0, serial = 0;
  int used = 0;
  const std::string rest = name.substr(prefix.size());
  if (std::sscanf(rest.c_str(), "%lld-%llu-%llu%n", &pid, &start, &serial, &used) != 3 ||
      used != static_cast<int>(rest.size()) || pid <= 0)
    return false;
  owner.pid = static_cast<pid_t>(pid);
  owner.start_ticks = start;
  return true;
}

bool owner_alive(const SegmentOwner& owner) {
  const unsigned long long start = process_start_ticks(owner.pid);
  return start != 0 && start == owner.start_ticks;
}

std::vector<std::string> sweep_stale_segments(const std::string& dir, uid_t uid) {
  std::vector<std::string> removed;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return removed;
  while (const dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    SegmentOwner owner;
    if (!parse_segment_name(name, owner)) continue;
    // Only the caller's own files: /dev/shm is shared by every user, and a
    // name that looks like ours may be another user's file (a root run once
    // deleted 20,000 of them). Never a link or anything but a regular file.
    struct stat st {};
    if (::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode) || st.st_uid != uid || owner_alive(owner))
      continue;
    // Several ranks may sweep at once: only the one whose unlink succeeds counts it.
    if (::unlinkat(::dirfd(d), name.c_str(), 0) == 0) removed.push_back(name);
  }
  ::closedir(d);
  // One line, however many: a crash loop can leave thousands.
  if (removed.size() == 1)
    std::fprintf(stderr,
                 "collbench: removed stale shared-memory segment %s/%s (its owner is no longer "
                 "running: a crashed earlier run)\n",
                 dir.c_str(), removed.front().c_str());
  else if (!removed.empty())
    std::fprintf(stderr,
                 "collbench: removed %zu stale shared-memory segments %s/%s* (their owners are "
                 "no longer running: crashed earlier runs)\n",
                 removed.size(), dir.c_str(), kSegmentPrefix);
  return removed;
}

}  // namespace cb::ipc
