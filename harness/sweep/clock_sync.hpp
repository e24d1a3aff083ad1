// Clock synchronization for the window-based start (--start window, Hunold &
// Carpen-Amarie's "MPI benchmarking revisited" / ReproMPI approach): rank 0
// ping-pongs every other rank and keeps, per rank, the exchange with the
// smallest round trip, whose midpoint pairs the two clocks best (queueing
// and scheduling delays only ever lengthen a round trip).
//
// Only an offset is estimated, no drift: the harness synchronizes again
// whenever a second has passed since (or 20 times what the synchronization
// took, where round trips are long; timing.cpp), so a drift of d ppm costs
// about d µs per second between synchronizations; ranks on one machine share
// one clock and have none.
#pragma once

#include <time.h>

#include <cstdint>

#include "harness/runtime/group.hpp"

namespace cb {

// CLOCK_MONOTONIC in NANOSECONDS: what offsets and start times are expressed
// in. Read directly (not through std::chrono::steady_clock) because the
// window wait sleeps on this very clock (clock_nanosleep, TIMER_ABSTIME).
inline std::int64_t monotonic_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct ClockOffset {
  // This rank's clock minus rank 0's, NANOSECONDS: a time t on rank 0's
  // clock is t + offset_ns on this rank's (0 on rank 0).
  std::int64_t offset_ns = 0;
  // Round trip of the exchange kept, NANOSECONDS; on rank 0 the largest over
  // ranks (what a message to the farthest rank and back takes).
  std::int64_t rtt_ns = 0;
};

// Collective over `g`: `exchanges` ping-pongs between rank 0 and each other
// rank in turn (at least 1). A one-rank group returns {0, 0}.
ClockOffset synchronize_clocks(Group& g, int exchanges);

}  // namespace cb
