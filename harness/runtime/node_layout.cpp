#include "harness/runtime/node_layout.hpp"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace cb {

std::string NodeLayoutInfo::describe() const {
  std::string text;
  if (nodes == 1)
    text = fmt::format("1 node of {} ranks", sizes);
  else if (ranks_per_node > 0 && sizes.find(',') != std::string::npos &&
           sizes.substr(sizes.rfind(',') + 1) == std::to_string(ranks_per_node))
    text = fmt::format("{} nodes x {} ranks", nodes, ranks_per_node);
  else
    text = fmt::format("{} nodes of {} ranks{}", nodes, sizes,
                       ranks_per_node < 0 ? " (not consecutive blocks of equal size)" : "");
  return forced ? text + " (forced by --ranks-per-node: emulated)" : text;
}

NodeLayoutInfo layout_from_nodes(std::span<const int> node_of_rank) {
  // Nodes in order of their first rank; each must be one run of ranks.
  std::map<int, int> index;
  std::vector<int> size;
  bool consecutive = true;
  int previous = -1;
  for (int id : node_of_rank) {
    const auto [it, fresh] = index.try_emplace(id, static_cast<int>(size.size()));
    if (fresh) size.push_back(0);
    if (!fresh && it->second != previous) consecutive = false;
    ++size[static_cast<std::size_t>(it->second)];
    previous = it->second;
  }
  NodeLayoutInfo l;
  l.nodes = static_cast<int>(size.size());
  for (std::size_t j = 0; j < size.size(); ++j)
    l.sizes += fmt::format("{}{}", j ? "," : "", size[j]);
  if (l.nodes <= 1) return l;
  bool blocks = consecutive && size.back() <= size.front();
  for (std::size_t j = 0; j + 1 < size.size(); ++j) blocks = blocks && size[j] == size.front();
  l.ranks_per_node = blocks ? size.front() : -1;
  return l;
}

NodeLayoutInfo forced_layout(int p, int k) {
  std::vector<int> node(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) node[static_cast<std::size_t>(r)] = r / k;
  NodeLayoutInfo l = layout_from_nodes(node);
  l.forced = true;
  return l;
}

}  // namespace cb
