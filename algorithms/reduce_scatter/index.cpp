// The reduce_scatter algorithms: one line per algorithm, in the order `collbench list` shows.
#include "algorithms/registry.hpp"

namespace cb {

std::span<const AlgorithmEntry> reduce_scatter_algorithms() { return {}; }

}  // namespace cb
