// POSIX shared-memory segments with hygiene: unique names, removal on every
// exit path, and detection of a crashed earlier run's leftovers.
//
// Names are "/collbench-<pid>-<starttime>-<random>": the owner's pid and its
// start time (clock ticks since boot, /proc/<pid>/stat field 22) identify the
// owning process even after the pid is reused, and a random 64-bit number
// (getrandom) makes each name unique and unpredictable, so another local user
// cannot block a run by creating its names first. Segments are created with
// O_EXCL (a taken name is retried with a fresh number), so a name is never
// reused. A name lives only from create() until the owner calls unlink() (the
// IPC transport unlinks right after every peer has mapped it); until then it is
// registered for removal in the destructor, at exit(), and on SIGINT, SIGTERM,
// SIGHUP, SIGQUIT, SIGABRT (an uncaught exception), SIGSEGV and SIGBUS: the
// handler unlinks, restores the previous disposition and re-raises the signal.
// Only SIGKILL and power loss can leave a name behind; sweep_stale_segments()
// removes those on the next run.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cb::ipc {

// Name prefix (without the leading '/') of every collbench segment in /dev/shm.
inline constexpr char kSegmentPrefix[] = "collbench-";

class ShmSegment {
 public:
  ShmSegment() = default;
  // Creates and maps (read-write) a new zero-filled segment of `bytes` bytes
  // under a fresh unique name; the first call in a process also runs
  // sweep_stale_segments(). Throws std::runtime_error naming the failing call.
  static ShmSegment create(std::size_t bytes);
  // Maps a peer's segment read-only. `bytes` must be the size it was created with.
  static ShmSegment open_read_only(const std::string& name, std::size_t bytes);

  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment();

  // Removes the name (mappings stay valid). Idempotent; only the creator unlinks.
  void unlink();

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  // The name without the leading '/', as it appears in /dev/shm.
  const std::string& name() const { return name_; }
  bool linked() const { return linked_; }

 private:
  void release();

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::string name_;
  bool owner_ = false;
  bool linked_ = false;
};

// Owner of a segment name, parsed from it.
struct SegmentOwner {
  pid_t pid = 0;
  unsigned long long start_ticks = 0;
};
// Parses "collbench-<pid>-<starttime>-<random>"; false for any other name.
bool parse_segment_name(const std::string& name, SegmentOwner& owner);
// Whether the process that created such a name still runs (same pid and same
// start time, so a reused pid does not count).
bool owner_alive(const SegmentOwner& owner);

// Unlinks every name still linked (async-signal-safe): the exit and signal
// paths call it, and so may a program's own abrupt-exit path.
void unlink_linked_segments();

// Scans `dir` (the shm mount, /dev/shm) for collbench segments whose owner no
// longer runs and that are regular files owned by `uid` (default: this
// process's effective uid; other users' files are never touched), removes
// them and returns their names; one line on stderr says how many. Segments
// of live processes (other runs in progress) are kept.
std::vector<std::string> sweep_stale_segments(const std::string& dir = "/dev/shm",
                                              uid_t uid = ::geteuid());

}  // namespace cb::ipc
