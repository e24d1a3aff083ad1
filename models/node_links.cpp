#include "models/node_links.hpp"

#include <algorithm>

#include "models/shared_link.hpp"

namespace cb::models {

namespace {

// lag[i]: how long after its own start message i's last byte leaves the link
// it shares with the messages whose `node_of` is the same.
template <class NodeOf>
void link_lags(std::span<const NodeMessage> msgs, const std::vector<std::size_t>& across,
               double beta, NodeOf node_of, std::vector<double>& lag) {
  std::vector<std::size_t> order = across;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return node_of(msgs[a]) < node_of(msgs[b]); });
  std::vector<LinkTransfer> link;
  for (std::size_t f = 0; f < order.size();) {
    std::size_t l = f + 1;
    while (l < order.size() && node_of(msgs[order[l]]) == node_of(msgs[order[f]])) ++l;
    const NodeMessage& first = msgs[order[f]];
    bool alike = true;  // one start and one size: what lanes in step put on a link
    for (std::size_t j = f + 1; j < l && alike; ++j)
      alike = msgs[order[j]].start_s == first.start_s && msgs[order[j]].bytes == first.bytes;
    if (alike) {
      // n equal transfers started together all end at n * bytes * beta
      // (alone: bytes * beta), exactly what shared_link_ends computes.
      const double w = first.bytes * beta;
      const double d = l - f == 1 ? w : w * static_cast<double>(l - f);
      for (std::size_t j = f; j < l; ++j) lag[order[j]] = std::max(lag[order[j]], d);
    } else {
      // Starts relative to the link's first, so that equal starts give
      // exactly the shared-link sums whatever the absolute time.
      double base = msgs[order[f]].start_s;
      for (std::size_t j = f; j < l; ++j) base = std::min(base, msgs[order[j]].start_s);
      link.clear();
      for (std::size_t j = f; j < l; ++j)
        link.push_back({msgs[order[j]].start_s - base, msgs[order[j]].bytes * beta});
      const std::vector<double> ends = shared_link_ends(link);
      for (std::size_t j = f; j < l; ++j)
        lag[order[j]] = std::max(lag[order[j]], ends[j - f] - link[j - f].start_s);
    }
    f = l;
  }
}

}  // namespace

std::vector<double> node_link_deliveries(std::span<const NodeMessage> msgs, double alpha_s,
                                         double beta_s_per_B) {
  std::vector<double> out(msgs.size());
  std::vector<std::size_t> across;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    out[i] = msgs[i].start_s;
    if (msgs[i].src_node != msgs[i].dst_node) across.push_back(i);
  }
  if (across.empty()) return out;
  std::vector<double> lag(msgs.size(), 0.0);
  link_lags(msgs, across, beta_s_per_B, [](const NodeMessage& m) { return m.src_node; }, lag);
  link_lags(msgs, across, beta_s_per_B, [](const NodeMessage& m) { return m.dst_node; }, lag);
  for (std::size_t i : across) out[i] = msgs[i].start_s + (alpha_s + lag[i]);
  return out;
}

}  // namespace cb::models
