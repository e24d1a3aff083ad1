#include "harness/sweep/clock_sync.hpp"

#include <algorithm>
#include <limits>

namespace cb {

ClockOffset synchronize_clocks(Group& g, int exchanges) {
  exchanges = std::max(exchanges, 1);
  ClockOffset mine;
  if (g.size() == 1) return mine;
  if (g.rank() == 0) {
    for (int r = 1; r < g.size(); ++r) {
      ClockOffset best{0, std::numeric_limits<std::int64_t>::max()};
      for (int k = 0; k < exchanges; ++k) {
        const std::int64_t t0 = monotonic_now_ns();
        send_value(g, r, t0);
        const auto remote = receive_value<std::int64_t>(g, r);
        const std::int64_t t1 = monotonic_now_ns();
        // The peer read its clock about halfway through the round trip.
        if (t1 - t0 < best.rtt_ns) best = {remote - (t0 + (t1 - t0) / 2), t1 - t0};
      }
      send_value(g, r, best);
      mine.rtt_ns = std::max(mine.rtt_ns, best.rtt_ns);
    }
    return mine;
  }
  for (int k = 0; k < exchanges; ++k) {
    (void)receive_value<std::int64_t>(g, 0);
    send_value(g, 0, monotonic_now_ns());
  }
  return receive_value<ClockOffset>(g, 0);
}

}  // namespace cb
