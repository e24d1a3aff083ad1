// The MPICH selection export: total (every level ends in a catch-all or an
// exhaustive yes/no pair), only MPICH algorithm names from the mapping, the
// default tree kept wherever collbench has no say, and the model's choice.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>

#include "algorithms/registry.hpp"
#include "models/mpich_selection.hpp"

namespace cb::models {
namespace {

using Json = nlohmann::ordered_json;

// A stand-in for MPICH's default tree with the same shape of keys.
Json default_tree() {
  const auto leaf = [](const char* a) { return Json{{std::string("algorithm=") + a, Json::object()}}; };
  Json t = Json::object();
  t["collective=bcast"] = {{"comm_type=intra", leaf("DEFAULT_bcast")},
                           {"comm_type=inter", leaf("DEFAULT_bcast_inter")}};
  for (const char* c : {"allreduce", "reduce_scatter_block", "allgather", "alltoall"}) {
    const std::string name = std::string("DEFAULT_") + c;
    t[std::string("collective=") + c] = {{"comm_type=intra", leaf(name.c_str())},
                                         {"comm_type=inter", leaf((name + "_inter").c_str())}};
  }
  return t;
}

// Total: every object level either is a leaf ("algorithm=..." -> {}) or has
// keys whose conditions cover every case, and all children are total.
void expect_total(const Json& node, const std::string& path, std::set<std::string>& algos) {
  ASSERT_TRUE(node.is_object()) << path;
  ASSERT_FALSE(node.empty()) << path << " is an empty level";
  const std::string first = node.begin().key();
  if (first.rfind("algorithm=", 0) == 0) {
    EXPECT_EQ(node.size(), 1u) << path;
    EXPECT_TRUE(node.begin().value().empty()) << path;
    algos.insert(first.substr(10));
    return;
  }
  std::set<std::string> keys;
  for (auto it = node.begin(); it != node.end(); ++it) keys.insert(it.key());
  const std::string last = std::prev(node.end()).key();
  const bool catch_all = last.size() > 4 && last.substr(last.size() - 4) == "=any";
  const auto pair = [&](const char* a, const char* b) { return keys.count(a) && keys.count(b); };
  const bool exhaustive = pair("is_commutative=yes", "is_commutative=no") ||
                          pair("is_sendbuf_inplace=yes", "is_sendbuf_inplace=no") ||
                          pair("comm_type=intra", "comm_type=inter") ||
                          first.rfind("collective=", 0) == 0;
  EXPECT_TRUE(catch_all || exhaustive) << path << " may match nothing (last key " << last << ")";
  for (auto it = node.begin(); it != node.end(); ++it) expect_total(it.value(), path + "/" + it.key(), algos);
}

TEST(MpichSelection, TotalWithMappedNamesAndDefaultsKept) {
  const Json out = mpich_selection(default_tree(), {2e-6, 1e-10, 2e-10});
  std::set<std::string> algos;
  expect_total(out, "", algos);
  EXPECT_EQ(out["collective=bcast"], default_tree()["collective=bcast"]);
  EXPECT_EQ(out["collective=allreduce"]["comm_type=inter"],
            default_tree()["collective=allreduce"]["comm_type=inter"]);
  std::set<std::string> allowed = {"DEFAULT_bcast", "DEFAULT_bcast_inter",
                                   "DEFAULT_allreduce", "DEFAULT_allreduce_inter",
                                   "DEFAULT_reduce_scatter_block", "DEFAULT_reduce_scatter_block_inter",
                                   "DEFAULT_allgather", "DEFAULT_allgather_inter",
                                   "DEFAULT_alltoall", "DEFAULT_alltoall_inter"};
  for (const AlgorithmEntry* e : all_algorithms())
    if (!mpich_algorithm(e->coll, e->name).empty()) allowed.insert(mpich_algorithm(e->coll, e->name));
  allowed.insert("MPIR_Allreduce_intra_recursive_doubling");  // rhd's count<pow2 guard
  for (const std::string& a : algos) EXPECT_TRUE(allowed.count(a)) << a;
  // The non-commutative / in-place cases keep MPICH's default.
  EXPECT_EQ(out["collective=allreduce"]["comm_type=intra"]["is_commutative=no"],
            default_tree()["collective=allreduce"]["comm_type=intra"]);
  EXPECT_EQ(out["collective=alltoall"]["comm_type=intra"]["is_sendbuf_inplace=yes"],
            default_tree()["collective=alltoall"]["comm_type=intra"]);
}

TEST(MpichSelection, LatencyBoundSmallAndBandwidthBoundLargeAllreduce) {
  bool have = true;
  for (const char* a : {"butterfly", "rhd"}) {
    bool found = false;
    for (const AlgorithmEntry& e : algorithms_for(Collective::allreduce)) found |= e.name == a;
    have &= found;
  }
  if (!have) GTEST_SKIP() << "allreduce butterfly and rhd are not both registered yet";
  const Json out = mpich_selection(default_tree(), {5e-6, 1e-10, 2e-10});
  const Json& p8 = out["collective=allreduce"]["comm_type=intra"]["is_commutative=yes"];
  // The first comm_size bucket holds p = 2..; its first size bucket is 8 B.
  const Json& sizes = p8.begin().value();
  EXPECT_EQ(sizes.begin().value().begin().key(),
            "algorithm=MPIR_Allreduce_intra_recursive_doubling");
  const Json& large = std::prev(sizes.end()).value();
  EXPECT_TRUE(large.contains("count=any")) << large.dump();
}

TEST(MpichSelection, MissingDefaultCollectiveIsAnError) {
  Json t = default_tree();
  t.erase("collective=alltoall");
  EXPECT_THROW(mpich_selection(t, {2e-6, 1e-10, 2e-10}), UsageError);
}

}  // namespace
}  // namespace cb::models
