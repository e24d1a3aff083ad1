// A window of global steps [first_step, first_step + steps) of ALL ranks'
// schedules, flattened to what timing needs: per message its peer and size in
// BYTES, per (rank, step) the bytes it reduces. Building windows instead of
// whole schedules keeps memory at O(p * steps-per-window) while algorithms
// such as ring have O(p) steps per rank.
//
// Layout is step-major, so the engine streams through memory: (window step s,
// rank r) is slot s * p + r; its sends are sends[send_off[slot] ..
// send_off[slot + 1]) in the schedule's list order, its receives likewise.
// Matching (schedule.hpp: the k-th receive at b from a in step s takes the
// k-th send a->b of step s) is resolved once per window into RecvOp::match.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "algorithms/check.hpp"
#include "algorithms/schedule.hpp"

namespace cb::sim {

// Rank `rank`'s schedule holding only global steps [begin, end); total_steps
// must be the whole schedule's step count (ScheduleBuilder windows do this).
using ScheduleSource =
    std::function<Schedule(int rank, std::uint64_t begin, std::uint64_t end)>;

// This thread's spare schedule: the window builder hands back every schedule
// it has read (unless it keeps them), and registry_source builds the next one
// in its storage, so step vectors are allocated once per thread, not once
// per rank and window.
Schedule& spare_schedule();

inline constexpr std::uint32_t kUnmatched = 0xFFFFFFFFu;

struct SendOp {
  std::int32_t peer = -1;
  std::uint32_t matched = 0;  // 1 once a receive took it
  std::uint64_t bytes = 0;
};

struct RecvOp {
  std::int32_t peer = -1;
  std::uint32_t match = kUnmatched;  // index into Window::sends
  std::uint64_t bytes = 0;
};

struct Window {
  int p = 0;
  std::uint64_t first_step = 0;
  std::uint64_t steps = 0;  // steps in this window
  std::uint64_t total_steps = 0;
  std::vector<std::uint32_t> send_off;  // p * steps + 1 entries
  std::vector<std::uint32_t> recv_off;  // p * steps + 1 entries
  std::vector<std::uint64_t> reduced_bytes;  // p * steps: reduce-receives + local reduces
  std::vector<SendOp> sends;
  std::vector<RecvOp> recvs;
  // With keep_schedules: every rank's window schedule (for moving real data).
  std::vector<Schedule> schedules;

  std::size_t slot(int rank, std::uint64_t s) const {
    return static_cast<std::size_t>(s) * static_cast<std::size_t>(p) + static_cast<std::size_t>(rank);
  }
};

// A window holding more than WindowLimits::max_messages messages; the
// simulator retries with fewer steps per window and reports it only when a
// single step is too large.
struct WindowTooLarge : UsageError {
  using UsageError::UsageError;
};

struct WindowLimits {
  // Refuse a window holding more messages than this (memory guard: each costs
  // about 44 bytes while simulated); the error names the window and the need.
  std::uint64_t max_messages = std::uint64_t{1} << 25;
  int threads = 1;  // schedule generation runs on this many threads
};

// Builds windows one after another, reusing its buffers (so later windows
// cost no fresh page faults) and generating schedules on limits.threads
// threads; the result does not depend on the thread count.
class WindowBuilder {
 public:
  WindowBuilder(int p, ScheduleSource source, WindowLimits limits, bool keep_schedules);
  ~WindowBuilder();
  WindowBuilder(const WindowBuilder&) = delete;
  WindowBuilder& operator=(const WindowBuilder&) = delete;

  // Every rank's steps [begin, end), end clamped to the schedules'
  // total_steps, with matching resolved. Valid until the next build(). Throws
  // InternalError when ranks disagree on the step count or matched messages
  // differ in size, WindowTooLarge when the window exceeds
  // limits.max_messages (found early: generation stops at the limit).
  const Window& build(std::uint64_t begin, std::uint64_t end);

 private:
  struct Piece;
  int p_;
  ScheduleSource source_;
  WindowLimits limits_;
  bool keep_;
  std::vector<Piece> pieces_;
  Window window_;
};

}  // namespace cb::sim
