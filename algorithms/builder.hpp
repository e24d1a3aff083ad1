// ScheduleBuilder: what algorithm generators write their schedule through.
//
// A generator calls step() once per global round (every rank, the same number
// of times, even when it idles in that round) and adds that round's sends,
// receives and local ops. The builder can keep only a window of steps
// [begin, end): the simulator builds every rank's schedule a window at a time
// so memory stays linear in p while schedules (e.g. ring at p = 4096) have
// O(p) steps per rank.
//
// Windows must not cost a replay from step 0: long loops of steps go through
// for_steps(), which skips the steps outside the window without running
// their bodies, so building a window costs O(steps and ops inside it) plus
// O(1) per for_steps() call, wherever the window lies.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "algorithms/params.hpp"
#include "algorithms/schedule.hpp"

namespace cb {

class ScheduleBuilder {
 public:
  static constexpr std::uint64_t kNoEnd = std::numeric_limits<std::uint64_t>::max();

  // `storage`, when given, is an earlier schedule whose step vectors are
  // reused (cleared, capacity kept): the simulator builds thousands of
  // schedules per window, and allocating every step's vectors anew dominated.
  ScheduleBuilder(const CollParams& params, std::string algorithm,
                  std::uint64_t window_begin = 0, std::uint64_t window_end = kNoEnd,
                  Schedule storage = {});

  const CollParams& params() const { return params_; }

  // Steps started so far, and the window this builder keeps [begin, end):
  // a combinator (algorithms/hierarchical) builds each phase's sub-schedule
  // for just the part of the window that phase covers.
  std::uint64_t steps_started() const { return next_step_; }
  std::uint64_t window_begin() const { return begin_; }
  std::uint64_t window_end() const { return end_; }

  // Declares a scratch buffer of `count` elements and returns its id.
  BufferId add_scratch(std::size_t count);

  // Starts the next step (round); returns its index.
  std::uint64_t step();

  // n consecutive steps: for each k in [0, n) starts a step and calls
  // body(k) to add its ops. Steps outside the window are counted without
  // calling body, so body(k) must depend on k alone (not on what earlier
  // calls did) and must not call step() itself.
  template <class Body>
  void for_steps(std::uint64_t n, Body&& body) {
    const std::uint64_t first = next_step_;
    const std::uint64_t lo = begin_ > first ? std::min(n, begin_ - first) : 0;
    const std::uint64_t hi = std::max(lo, end_ > first ? std::min(n, end_ - first) : 0);
    next_step_ = first + lo;
    for (std::uint64_t k = lo; k < hi; ++k) {
      step();
      body(k);
    }
    next_step_ = first + n;
  }

  void send(int peer, Region src);
  void recv(int peer, Region dst);         // dst = message
  void recv_reduce(int peer, Region dst);  // dst = dst (op) message
  void copy(Region src, Region dst);       // local, after the step's messages
  void reduce(Region src, Region dst);     // local: dst = dst (op) src
  void average(Region dst);                // local: dst = dst / p

  // Records the segment size the generator actually used (bytes).
  void set_segment_bytes(std::size_t bytes) { sched_.segment_bytes = bytes; }

  Schedule finish() &&;

 private:
  Step* current();  // nullptr when the current step is outside the window

  CollParams params_;
  Schedule sched_;
  std::uint64_t begin_;
  std::uint64_t end_;
  std::uint64_t next_step_ = 0;  // steps started so far
  std::size_t used_steps_ = 0;   // steps of sched_.steps in use (the rest is storage)
};

}  // namespace cb
