#include "models/shared_link.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace cb::models {

std::vector<double> shared_link_ends(const std::vector<LinkTransfer>& transfers) {
  const std::size_t n = transfers.size();
  std::vector<double> end(n), left(n);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return transfers[a].start_s < transfers[b].start_s;
  });
  std::vector<std::size_t> active;
  std::size_t next = 0;
  double t = 0;
  while (next < n || !active.empty()) {
    if (active.empty()) t = std::max(t, transfers[order[next]].start_s);
    while (next < n && transfers[order[next]].start_s <= t) {
      const std::size_t i = order[next++];
      if (transfers[i].work_s > 0) {
        left[i] = transfers[i].work_s;
        active.push_back(i);
      } else {
        end[i] = transfers[i].start_s;
      }
    }
    if (active.empty()) continue;
    const double k = static_cast<double>(active.size());
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t i : active) least = std::min(least, left[i]);
    const double arrival = next < n ? transfers[order[next]].start_s
                                    : std::numeric_limits<double>::infinity();
    // Each active transfer moves at 1/k of the link until the first of them
    // ends or another one starts.
    const double done = std::min(least, (arrival - t) / k);
    t = done == least ? t + least * k : arrival;
    std::erase_if(active, [&](std::size_t i) {
      left[i] -= done;
      if (left[i] > 1e-12 * transfers[i].work_s) return false;
      end[i] = t;
      return true;
    });
  }
  return end;
}

}  // namespace cb::models
