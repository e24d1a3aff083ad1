#include "models/predict.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/check.hpp"
#include "algorithms/collective.hpp"
#include "models/lower_bound.hpp"
#include "models/two_level.hpp"

namespace cb::models {

namespace {
// Bytes of S per unit of count (collective.hpp's size_per_rank).
std::uint64_t bytes_per_count(Collective coll, int p, DataType dtype) {
  const std::uint64_t elem = element_size(dtype);
  return collective_spec(coll).size_per_rank ? elem * static_cast<std::uint64_t>(p) : elem;
}
}  // namespace

std::optional<std::uint64_t> count_for_bytes(Collective coll, int p, DataType dtype,
                                             std::uint64_t bytes) {
  const std::uint64_t unit = bytes_per_count(coll, p, dtype);
  if (bytes % unit != 0) return std::nullopt;
  return bytes / unit;
}

std::uint64_t bytes_for_count(Collective coll, int p, DataType dtype, std::uint64_t count) {
  return count * bytes_per_count(coll, p, dtype);
}

CollParams coll_params(const Scenario& s, std::uint64_t count) {
  CollParams params;
  params.coll = s.coll;
  params.p = s.p;
  params.count = count;
  params.dtype = s.dtype;
  params.op = s.op;
  params.in_place = s.in_place;
  params.ranks_per_node = s.ranks_per_node;
  return params;
}

Cost model_cost(const AlgorithmEntry& algo, const Scenario& s, std::uint64_t count) {
  return closed_form_cost(algo, coll_params(s, count));
}

double predict_seconds(const AlgorithmEntry& algo, const Scenario& s, std::uint64_t count,
                       const ModelParams& m) {
  return level_seconds(algo, coll_params(s, count), m);
}

std::vector<PredictedRow> predict_table(const Scenario& s, const std::vector<std::uint64_t>& sizes,
                                        const ModelParams& m) {
  const auto registered = algorithms_for(s.coll);
  return predict_table(s, std::vector<AlgorithmEntry>(registered.begin(), registered.end()), sizes,
                       m);
}

std::vector<PredictedRow> predict_table(const Scenario& s, const std::vector<AlgorithmEntry>& algos,
                                        const std::vector<std::uint64_t>& sizes,
                                        const ModelParams& m) {
  const std::uint64_t unit = bytes_per_count(s.coll, s.p, s.dtype);
  std::vector<PredictedRow> rows;
  for (std::uint64_t size : sizes) {
    const std::uint64_t count = size / unit;
    if (count == 0 || (!rows.empty() && rows.back().count == count)) continue;
    PredictedRow row;
    row.count = count;
    row.bytes = count * unit;
    for (const AlgorithmEntry& a : algos) row.seconds.push_back(predict_seconds(a, s, count, m));
    row.best = static_cast<std::size_t>(
        std::min_element(row.seconds.begin(), row.seconds.end()) - row.seconds.begin());
    row.lower_bound_s =
        lower_bound_seconds(s.coll, s.p, static_cast<double>(row.bytes), s.ranks_per_node, m);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace cb::models
