// Predictions from the closed-form costs of the registry, at any scale:
// the closed forms are arithmetic, so p = 16384 costs no more than p = 2.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "algorithms/registry.hpp"
#include "models/model_params.hpp"

namespace cb::models {

// Elements (the collective's MPI count) for a size S in bytes as the results
// CSV defines it, or nullopt when S is not a whole number of such counts.
std::optional<std::uint64_t> count_for_bytes(Collective coll, int p, DataType dtype,
                                             std::uint64_t bytes);
// S in bytes for an MPI count (inverse of count_for_bytes).
std::uint64_t bytes_for_count(Collective coll, int p, DataType dtype, std::uint64_t count);

// What an algorithm is run with; everything but the algorithm and count.
struct Scenario {
  Collective coll = Collective::allreduce;
  int p = 1;
  DataType dtype = DataType::fp32;
  ReduceOp op = ReduceOp::sum;
  bool in_place = false;
  // Node layout (CollParams::ranks_per_node; the CSV's ranks_per_node
  // column): K ranks per node, 0 = one node.
  int ranks_per_node = 0;
};

// The generator parameters of scenario `s` at `count` elements.
CollParams coll_params(const Scenario& s, std::uint64_t count);
// Closed-form cost coefficients of `algo` for `count` elements.
Cost model_cost(const AlgorithmEntry& algo, const Scenario& s, std::uint64_t count);
// Predicted seconds: with a two-level `m` (ModelParams::two_level) and a
// layout (s.ranks_per_node), every message at the level it crosses
// (models/two_level.hpp, level_seconds); otherwise the closed form.
double predict_seconds(const AlgorithmEntry& algo, const Scenario& s, std::uint64_t count,
                       const ModelParams& m);

// One row of `collbench predict`: every algorithm of the collective at one size.
struct PredictedRow {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  std::vector<double> seconds;  // per algorithm, in algorithms_for(coll) (or `algos`) order
  std::size_t best = 0;         // index of the fastest
  double lower_bound_s = 0;  // on two levels: at the cheaper level's alpha and beta
};
// One row per requested size S (bytes), each rounded down to a whole count;
// sizes that round to count 0 are skipped, as are repeats. Every registered
// algorithm of the collective, or `algos` in their order.
std::vector<PredictedRow> predict_table(const Scenario& s, const std::vector<std::uint64_t>& sizes,
                                        const ModelParams& m);
std::vector<PredictedRow> predict_table(const Scenario& s, const std::vector<AlgorithmEntry>& algos,
                                        const std::vector<std::uint64_t>& sizes,
                                        const ModelParams& m);

}  // namespace cb::models
