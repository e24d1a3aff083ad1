// Test-only algorithm entries whose closed forms are the textbook rows of
// algorithms/README.md (powers of two), so the fitting code can be tested on known
// bases independently of which algorithms the registry holds.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "algorithms/registry.hpp"
#include "models/model_params.hpp"
#include "models/predict.hpp"
#include "models/results_csv.hpp"

namespace cb::models::test {

inline double lg(int p) { return std::log2(static_cast<double>(p)); }
// n = S of the results CSV (bytes_for_count).
inline double S(const CollParams& c) {
  return static_cast<double>(bytes_for_count(c.coll, c.p, c.dtype, c.count));
}
inline double frac(int p) { return static_cast<double>(p - 1) / p; }

inline Cost ring_allreduce(const CollParams& c) {
  return {2.0 * (c.p - 1), 2 * frac(c.p) * S(c), frac(c.p) * S(c)};
}
inline Cost butterfly_allreduce(const CollParams& c) {
  return {lg(c.p), lg(c.p) * S(c), lg(c.p) * S(c)};
}
inline Cost tree_allreduce(const CollParams& c) {
  return {2 * lg(c.p), 2 * lg(c.p) * S(c), lg(c.p) * S(c)};
}
inline Cost ring_reduce_scatter(const CollParams& c) {
  return {c.p - 1.0, frac(c.p) * S(c), frac(c.p) * S(c)};
}
inline Cost ring_allgather(const CollParams& c) { return {c.p - 1.0, frac(c.p) * S(c), 0}; }
inline Cost bruck_alltoall(const CollParams& c) { return {lg(c.p), lg(c.p) / 2 * S(c), 0}; }

inline const std::vector<AlgorithmEntry>& textbook_entries() {
  static const std::vector<AlgorithmEntry> e = {
      {Collective::allreduce, "tb_ring", "", nullptr, ring_allreduce, false, "", false},
      {Collective::allreduce, "tb_butterfly", "", nullptr, butterfly_allreduce, false, "", false},
      {Collective::allreduce, "tb_tree", "", nullptr, tree_allreduce, false, "", false},
      {Collective::reduce_scatter, "tb_ring", "", nullptr, ring_reduce_scatter, false, "", false},
      {Collective::allgather, "tb_ring", "", nullptr, ring_allgather, false, "", false},
      {Collective::alltoall, "tb_bruck", "", nullptr, bruck_alltoall, false, "", false},
  };
  return e;
}

inline constexpr ModelParams kTruth{2e-6, 1e-10, 2.5e-10};  // 2 us, 10 GB/s, 4 GB/s

// Rows for every textbook entry, p in ps, S = 8 B .. 64 MiB (doubling), fp32
// sum out of place, time = model * (1 + noise * N(0,1)) (seeded).
inline std::vector<Measurement> synthetic_rows(const std::vector<int>& ps, double noise,
                                               std::uint64_t seed,
                                               const ModelParams& truth = kTruth) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<Measurement> rows;
  std::size_t line = 2;
  for (const AlgorithmEntry& e : textbook_entries())
    for (int p : ps)
      for (std::uint64_t bytes = 8; bytes <= (64u << 20); bytes *= 2) {
        Measurement m;
        m.line = line++;
        m.transport = "synthetic";
        m.algorithm = std::string(e.name);
        m.entry = &e;
        m.scenario = {e.coll, p, DataType::fp32, ReduceOp::sum, false};
        m.has_op = is_reducing(e.coll);
        const auto count = count_for_bytes(e.coll, p, DataType::fp32, bytes);
        if (!count || *count == 0) continue;
        m.count = *count;
        m.bytes = bytes;
        const double t = predict_seconds(e, m.scenario, m.count, truth);
        m.time_s = t * std::max(0.5, 1 + noise * z(rng));
        rows.push_back(m);
      }
  return rows;
}

}  // namespace cb::models::test
