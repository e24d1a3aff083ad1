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

// What a cell's choice builds on: the chooser and MPICH's default subtree of
// the collective being replaced ("" choices keep it).
struct TreeInputs {
  const SelectionChooser& choose;
  const Json& fallback;
  const SelectionGrid& grid;
};

// The subtree that runs `ours` once every condition above it matched.
Json choice(Collective coll, std::string_view ours, const Json& fallback) {
  if (ours.empty()) return fallback;
  const std::string name = mpich_algorithm(coll, ours);
  CB_CHECK(!name.empty(), "{} has no MPICH equivalent for {}", ours, to_string(coll));
  if (coll == Collective::allreduce && ours == "rhd") {
    Json j = Json::object();
    j["count<pow2"] = leaf(mpich_algorithm(coll, "butterfly"));
    j["count=any"] = leaf(name);
    return j;
  }
  return leaf(name);
}

// Size buckets at one comm size: runs of the same choice.
Json size_tree(Collective coll, int p, bool allow_pow2_only, const TreeInputs& in) {
  const bool by_total = coll == Collective::allgather || coll == Collective::reduce_scatter;
  struct Run {
    std::string best;
    std::uint64_t first = 0, last = 0;  // MPICH message size (bytes)
  };
  std::vector<Run> runs;
  for (std::uint64_t S = in.grid.min_bytes; S <= in.grid.max_bytes; S *= 2) {
    // Sizes that are no whole count (S not a multiple of 4p) are skipped.
    if (S / bytes_for_count(coll, p, DataType::fp32, 1) == 0) continue;
    const std::string best = in.choose(coll, p, S, allow_pow2_only);
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
    j[cond] = choice(coll, runs[i].best, in.fallback);
  }
  CB_CHECK(!runs.empty(), "no size of the grid for {} at p = {}", to_string(coll), p);
  j[key + "=any"] = choice(coll, runs.back().best, in.fallback);
  return j;
}

Json comm_tree(Collective coll, int p, const TreeInputs& in) {
  if (coll != Collective::allgather) return size_tree(coll, p, true, in);
  Json j = Json::object();
  j["comm_size=pow2"] = size_tree(coll, p, true, in);
  j["comm_size=any"] = size_tree(coll, std::max(2, p - 1), false, in);
  return j;
}

// comm_size buckets (<= each grid size, then any), equal neighbours merged.
Json model_tree(Collective coll, const TreeInputs& in) {
  std::vector<std::pair<int, Json>> buckets;
  const auto add = [&](int p, Json t) {
    if (!buckets.empty() && buckets.back().second == t)
      buckets.back().first = p;
    else
      buckets.emplace_back(p, std::move(t));
  };
  int previous = 1;
  for (int p : in.grid.comm_sizes) {
    // Measured comm sizes only: the ones between keep MPICH's default.
    if (in.grid.exact_comm_sizes && p > previous + 1) add(p - 1, in.fallback);
    add(p, comm_tree(coll, p, in));
    previous = p;
  }
  Json any = in.grid.exact_comm_sizes
                 ? in.fallback
                 : comm_tree(coll, in.grid.comm_sizes.empty() ? 2 : 2 * in.grid.comm_sizes.back(),
                             in);
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

Json mpich_selection(const Json& default_tree, const SelectionChooser& choose,
                     const SelectionGrid& grid) {
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
    const TreeInputs in{choose, def, grid};
    Json intra = Json::object();
    if (guard_default) {
      intra[guard_default] = def;
      intra[guard_model] = model_tree(coll, in);
    } else {
      intra = model_tree(coll, in);
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

Json mpich_selection(const Json& default_tree, const ModelParams& m, const SelectionGrid& grid) {
  const SelectionChooser predicted = [&m](Collective coll, int p, std::uint64_t S,
                                          bool allow_pow2_only) {
    const Scenario s{coll, p, DataType::fp32, ReduceOp::sum, false};
    const std::uint64_t count = S / bytes_for_count(coll, p, DataType::fp32, 1);
    std::string best;
    double best_t = 0;
    for (const AlgorithmEntry& e : algorithms_for(coll)) {
      if (mpich_algorithm(coll, e.name).empty()) continue;
      if (!allow_pow2_only && e.mpich_pow2_only) continue;
      const double t = predict_seconds(e, s, count, m);
      if (best.empty() || t < best_t) {
        best = std::string(e.name);
        best_t = t;
      }
    }
    return best;
  };
  return mpich_selection(default_tree, predicted, grid);
}

}  // namespace cb::models
