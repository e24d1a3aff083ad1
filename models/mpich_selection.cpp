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

std::string mpich_default_tree_problem(const Json& tree) {
  if (!tree.is_object()) return fmt::format("is a JSON {}, not an object", tree.type_name());
  for (Collective coll : kAllCollectives) {
    const std::string key = fmt::format("collective={}", mpich_selection_key(coll));
    if (!tree.contains(key) || !tree[key].is_object() || !tree[key].contains("comm_type=intra"))
      return fmt::format("has no '{}' / 'comm_type=intra' to start from", key);
  }
  return {};
}

std::optional<Json> find_mpich_default_tree(std::string_view lib) {
  const std::string_view marker = "{\"collective=";
  for (std::size_t at = lib.find(marker); at != std::string_view::npos;
       at = lib.find(marker, at + 1)) {
    const std::size_t end = lib.find('\0', at);
    const std::string_view text = lib.substr(at, (end == std::string_view::npos ? lib.size() : end) - at);
    if (text.find("MPIR_Allreduce_intra") == std::string_view::npos) continue;
    try {
      Json tree = Json::parse(text);
      if (tree.contains("collective=allreduce") && tree.contains("collective=alltoall"))
        return tree;
    } catch (const nlohmann::json::exception&) {
      // Not the tree (a fragment of another string): keep looking.
    }
  }
  return std::nullopt;
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

// The candidates of `coll`: entries with an MPICH equivalent.
std::vector<const AlgorithmEntry*> candidates(Collective coll) {
  std::vector<const AlgorithmEntry*> out;
  for (const AlgorithmEntry& e : algorithms_for(coll))
    if (!e.mpich.empty()) out.push_back(&e);
  return out;
}

bool any_candidate(Collective coll, bool (*restricted)(const AlgorithmEntry&)) {
  for (const AlgorithmEntry* e : candidates(coll))
    if (restricted(*e)) return true;
  return false;
}

// What runs below MPICH's size-ge-pof2 restriction (count < p'): the first
// candidate without it (and without power-of-two), as MPICH's own default
// falls back to recursive doubling there.
std::string small_count_algorithm(Collective coll) {
  for (const AlgorithmEntry* e : candidates(coll))
    if (!e->mpich_count_ge_pof2 && !e->mpich_pow2_only) return mpich_algorithm(coll, e->name);
  throw InternalError(
      fmt::format("no MPICH candidate of {} runs counts below pow2", to_string(coll)));
}

// The subtree that runs `ours` once every condition above it matched.
Json choice(Collective coll, std::string_view ours, const Json& fallback, bool collbench_leaves) {
  if (ours.empty()) return fallback;
  if (collbench_leaves) {
    bool registered = false;
    for (const AlgorithmEntry& e : algorithms_for(coll)) registered = registered || e.name == ours;
    CB_CHECK(registered, "{} is no registered {} algorithm", ours, to_string(coll));
    return leaf(std::string(ours));
  }
  const std::string name = mpich_algorithm(coll, ours);
  CB_CHECK(!name.empty(), "{} has no MPICH equivalent for {}", ours, to_string(coll));
  if (find_algorithm(coll, ours).mpich_count_ge_pof2) {
    Json j = Json::object();
    j["count<pow2"] = leaf(small_count_algorithm(coll));
    j["count=any"] = leaf(name);
    return j;
  }
  return leaf(name);
}

// Size buckets at one comm size: runs of the same choice.
Json size_tree(Collective coll, int p, bool allow_pow2_only, const TreeInputs& in) {
  const CollectiveSpec& spec = collective_spec(coll);
  const bool by_total = spec.mpich_size_key == MpichSizeKey::total_msg_size;
  struct Run {
    std::string best;
    std::uint64_t first = 0, last = 0;  // MPICH message size (bytes)
  };
  std::vector<Run> runs;
  for (std::uint64_t S = in.grid.min_bytes; S <= in.grid.max_bytes; S *= 2) {
    // Sizes that are no whole count (S not a multiple of 4p) are skipped.
    if (S / bytes_for_count(coll, p, DataType::fp32, 1) == 0) continue;
    const std::string best = in.choose(coll, p, S, allow_pow2_only);
    // MPICH's size: the whole vector (total) or one rank's message (avg).
    const std::uint64_t size =
        by_total || !spec.size_per_rank ? S : S / static_cast<std::uint64_t>(p);
    if (!runs.empty() && runs.back().best == best)
      runs.back().last = size;
    else
      runs.push_back({best, size, size});
  }
  Json j = Json::object();
  const std::string key(to_string(spec.mpich_size_key));
  for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
    // avg_msg_size<=last of this run; total_msg_size<first of the next run.
    const std::string cond = by_total ? fmt::format("{}<{}", key, runs[i + 1].first)
                                      : fmt::format("{}<={}", key, runs[i].last);
    j[cond] = choice(coll, runs[i].best, in.fallback, in.grid.collbench_leaves);
  }
  CB_CHECK(!runs.empty(), "no size of the grid for {} at p = {}", to_string(coll), p);
  j[key + "=any"] = choice(coll, runs.back().best, in.fallback, in.grid.collbench_leaves);
  return j;
}

// A collective with a power-of-two-only candidate splits on comm_size=pow2.
Json comm_tree(Collective coll, int p, const TreeInputs& in) {
  // collbench's own file: collbench's algorithms run at any p.
  if (in.grid.collbench_leaves ||
      !any_candidate(coll, [](const AlgorithmEntry& e) { return e.mpich_pow2_only; }))
    return size_tree(coll, p, true, in);
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

// The model's tree behind the guards its candidates' MPICH restrictions
// need; MPICH's default runs the cases they exclude. Built-in ops are all
// commutative, so a builtin-op restriction needs is_commutative too.
Json guarded_tree(Collective coll, const TreeInputs& in) {
  Json tree = model_tree(coll, in);
  const auto guard = [&](const char* excluded, const char* kept) {
    Json j = Json::object();
    j[excluded] = in.fallback;
    j[kept] = std::move(tree);
    tree = std::move(j);
  };
  if (any_candidate(coll, [](const AlgorithmEntry& e) { return e.mpich_no_in_place; }))
    guard("is_sendbuf_inplace=yes", "is_sendbuf_inplace=no");
  if (any_candidate(coll, [](const AlgorithmEntry& e) {
        return e.mpich_commutative_only || e.mpich_builtin_op_only;
      }))
    guard("is_commutative=no", "is_commutative=yes");
  return tree;
}

}  // namespace

Json mpich_selection(const Json& default_tree, const SelectionChooser& choose,
                     const SelectionGrid& grid) {
  if (grid.collbench_leaves) {
    // The library's own collective wherever nothing is chosen, for every
    // communicator kind and op (the walk takes the first match).
    const Json library = leaf("mpi");
    const TreeInputs in{choose, library, grid};
    Json out = Json::object();
    for (Collective coll : kAllCollectives) {
      Json& top = out[fmt::format("collective={}", mpich_selection_key(coll))];
      // The cases MPICH's file guards (measured: commutative ops, all-to-all
      // out of place) get the library as well.
      Json intra = Json::object();
      if (coll == Collective::alltoall) {
        intra["is_sendbuf_inplace=yes"] = library;
        intra["is_sendbuf_inplace=no"] = model_tree(coll, in);
      } else if (is_reducing(coll)) {
        intra["is_commutative=no"] = library;
        intra["is_commutative=yes"] = model_tree(coll, in);
      } else {
        intra = model_tree(coll, in);
      }
      top["comm_type=intra"] = std::move(intra);
      top["comm_type=any"] = library;
    }
    return out;
  }
  if (const std::string problem = mpich_default_tree_problem(default_tree); !problem.empty())
    throw UsageError(fmt::format("MPICH default selection tree {}", problem));
  const auto default_intra = [&](Collective coll) -> const Json& {
    return default_tree[fmt::format("collective={}", mpich_selection_key(coll))]["comm_type=intra"];
  };
  // A collective none of whose algorithms has an MPICH equivalent keeps
  // MPICH's default.
  Json out = default_tree;
  for (Collective coll : kAllCollectives) {
    const Json& def = default_intra(coll);
    if (candidates(coll).empty()) continue;
    out[fmt::format("collective={}", mpich_selection_key(coll))]["comm_type=intra"] =
        guarded_tree(coll, TreeInputs{choose, def, grid});
  }
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
