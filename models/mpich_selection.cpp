#include "models/mpich_selection.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "algorithms/check.hpp"
#include "algorithms/collective.hpp"
#include "algorithms/registry.hpp"
#include "models/predict.hpp"

namespace cb::models {

using Json = nlohmann::ordered_json;

std::string mpich_algorithm(Collective coll, std::string_view algorithm) {
  for (const AlgorithmEntry& e : algorithms_for(coll))
    if (e.name == algorithm && !e.mpich.empty())
      return fmt::format("MPIR_{}_intra_{}", collective_spec(coll).mpich_name, e.mpich);
  return {};
}

namespace {

Json leaf(const std::string& mpich) {
  Json j = Json::object();
  j["algorithm=" + mpich] = Json::object();
  return j;
}

// The subtree that runs `ours` once every condition above it matched.
Json choice(Collective coll, std::string_view ours) {
  const std::string name = mpich_algorithm(coll, ours);
  if (coll == Collective::allreduce && ours == "rhd") {
    Json j = Json::object();
    j["count<pow2"] = leaf(mpich_algorithm(coll, "butterfly"));
    j["count=any"] = leaf(name);
    return j;
  }
  return leaf(name);
}

bool needs_pow2(Collective coll, std::string_view ours) {
  return find_algorithm(coll, ours).mpich_pow2_only;
}

// Size buckets at one comm size: runs of the same predicted best candidate.
Json size_tree(Collective coll, int p, bool allow_pow2_only, const ModelParams& m,
               const SelectionGrid& grid) {
  const bool by_total = coll == Collective::allgather || coll == Collective::reduce_scatter;
  const Scenario s{coll, p, DataType::fp32, ReduceOp::sum, false};
  struct Run {
    std::string best;
    std::uint64_t first = 0, last = 0;  // MPICH message size (bytes)
  };
  std::vector<Run> runs;
  for (std::uint64_t S = grid.min_bytes; S <= grid.max_bytes; S *= 2) {
    // Sizes that are no whole count (S not a multiple of 4p) round down.
    const std::uint64_t count = S / bytes_for_count(coll, p, DataType::fp32, 1);
    if (count == 0) continue;
    std::string best;
    double best_t = 0;
    for (const AlgorithmEntry& e : algorithms_for(coll)) {
      if (mpich_algorithm(coll, e.name).empty()) continue;
      if (!allow_pow2_only && needs_pow2(coll, e.name)) continue;
      const double t = predict_seconds(e, s, count, m);
      if (best.empty() || t < best_t) {
        best = std::string(e.name);
        best_t = t;
      }
    }
    if (best.empty()) continue;
    const std::uint64_t size = coll == Collective::alltoall ? S / static_cast<std::uint64_t>(p) : S;
    if (!runs.empty() && runs.back().best == best)
      runs.back().last = size;
    else
      runs.push_back({best, size, size});
  }
  Json j = Json::object();
  const std::string key = by_total ? "total_msg_size" : "avg_msg_size";
  for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
    // avg_msg_size<=last of this run; total_msg_size<first of the next run.
    const std::string cond = by_total ? fmt::format("{}<{}", key, runs[i + 1].first)
                                      : fmt::format("{}<={}", key, runs[i].last);
    j[cond] = choice(coll, runs[i].best);
  }
  CB_CHECK(!runs.empty(), "no MPICH candidate for {} at p = {}", to_string(coll), p);
  j[key + "=any"] = choice(coll, runs.back().best);
  return j;
}

Json comm_tree(Collective coll, int p, const ModelParams& m, const SelectionGrid& grid) {
  if (coll != Collective::allgather) return size_tree(coll, p, true, m, grid);
  Json j = Json::object();
  j["comm_size=pow2"] = size_tree(coll, p, true, m, grid);
  j["comm_size=any"] = size_tree(coll, std::max(2, p - 1), false, m, grid);
  return j;
}

// comm_size buckets (<= each grid size, then any), equal neighbours merged.
Json model_tree(Collective coll, const ModelParams& m, const SelectionGrid& grid) {
  std::vector<std::pair<int, Json>> buckets;
  for (int p : grid.comm_sizes) {
    Json t = comm_tree(coll, p, m, grid);
    if (!buckets.empty() && buckets.back().second == t)
      buckets.back().first = p;
    else
      buckets.emplace_back(p, std::move(t));
  }
  const int beyond = grid.comm_sizes.empty() ? 2 : 2 * grid.comm_sizes.back();
  Json any = comm_tree(coll, beyond, m, grid);
  if (!buckets.empty() && buckets.back().second == any) buckets.pop_back();
  Json j = Json::object();
  for (auto& [p, t] : buckets) j[fmt::format("comm_size<={}", p)] = std::move(t);
  j["comm_size=any"] = std::move(any);
  return j;
}

bool has_candidates(Collective coll) {
  for (const AlgorithmEntry& e : algorithms_for(coll))
    if (!mpich_algorithm(coll, e.name).empty()) return true;
  return false;
}

}  // namespace

Json mpich_selection(const Json& default_tree, const ModelParams& m, const SelectionGrid& grid) {
  const auto default_intra = [&](const char* coll) -> const Json& {
    const std::string key = fmt::format("collective={}", coll);
    if (!default_tree.contains(key) || !default_tree[key].contains("comm_type=intra"))
      throw UsageError(fmt::format("MPICH default selection tree has no '{}' / 'comm_type=intra' "
                                   "to start from",
                                   key));
    return default_tree[key]["comm_type=intra"];
  };
  // A collective none of whose candidates is registered keeps MPICH's default.
  Json out = default_tree;
  const auto guarded = [&](Collective coll, const char* mpich_coll, const char* guard_default,
                           const char* guard_model) {
    const Json& def = default_intra(mpich_coll);
    if (!has_candidates(coll)) return;
    Json intra = Json::object();
    if (guard_default) {
      intra[guard_default] = def;
      intra[guard_model] = model_tree(coll, m, grid);
    } else {
      intra = model_tree(coll, m, grid);
    }
    out[fmt::format("collective={}", mpich_coll)]["comm_type=intra"] = std::move(intra);
  };
  guarded(Collective::allreduce, "allreduce", "is_commutative=no", "is_commutative=yes");
  guarded(Collective::reduce_scatter, "reduce_scatter_block", "is_commutative=no",
          "is_commutative=yes");
  guarded(Collective::allgather, "allgather", nullptr, nullptr);
  guarded(Collective::alltoall, "alltoall", "is_sendbuf_inplace=yes", "is_sendbuf_inplace=no");
  return out;
}

}  // namespace cb::models
