// Bad names and undefined (collective, algorithm) pairs give one line that
// names the bad value and lists the valid ones.
#include <gtest/gtest.h>

#include <string>

#include "algorithms/registry.hpp"

namespace cb {
namespace {

template <class F>
std::string usage_error_of(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UsageError thrown";
  return {};
}

void expect_one_line_naming(const std::string& msg, const std::string& bad,
                            const std::vector<std::string>& valid) {
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("'" + bad + "'"), std::string::npos) << msg;
  for (const std::string& v : valid) EXPECT_NE(msg.find(v), std::string::npos) << msg << " lacks " << v;
}

TEST(Registry, UnknownCollective) {
  expect_one_line_naming(usage_error_of([] { parse_collective("allgatherv"); }), "allgatherv",
                         {"allreduce", "reduce_scatter", "allgather", "alltoall"});
}

TEST(Registry, UnknownDatatype) {
  std::vector<std::string> valid;
  for (DataType t : kAllDataTypes) valid.emplace_back(to_string(t));
  expect_one_line_naming(usage_error_of([] { parse_datatype("float128"); }), "float128", valid);
}

TEST(Registry, UnknownOp) {
  expect_one_line_naming(usage_error_of([] { parse_reduce_op("xor"); }), "xor",
                         {"sum", "prod", "min", "max", "avg"});
}

std::vector<std::string> names_for(Collective c) {
  std::vector<std::string> names;
  for (const AlgorithmEntry& e : algorithms_for(c)) names.emplace_back(e.name);
  return names;
}

TEST(Registry, UnknownAlgorithm) {
  for (Collective c : kAllCollectives)
    expect_one_line_naming(usage_error_of([c] { find_algorithm(c, "quantum"); }), "quantum",
                           names_for(c));
}

TEST(Registry, UndefinedPairsListWhatExists) {
  // Pairs the literature does not define, plus every registered name asked
  // for a collective that lacks it.
  expect_one_line_naming(usage_error_of([] { find_algorithm(Collective::allreduce, "bruck"); }),
                         "bruck", names_for(Collective::allreduce));
  expect_one_line_naming(usage_error_of([] { find_algorithm(Collective::allgather, "dbtree"); }),
                         "dbtree", names_for(Collective::allgather));
  for (Collective c : kAllCollectives) {
    const auto defined = names_for(c);
    for (std::string_view name : all_algorithm_names()) {
      if (std::find(defined.begin(), defined.end(), name) != defined.end()) {
        EXPECT_EQ(find_algorithm(c, name).name, name);
        continue;
      }
      const std::string msg = usage_error_of([&] { find_algorithm(c, name); });
      expect_one_line_naming(msg, std::string(name), defined);
      EXPECT_NE(msg.find(std::string(to_string(c))), std::string::npos) << msg;
    }
  }
}

TEST(Registry, EntriesAreWellFormed) {
  for (Collective c : kAllCollectives) {
    std::vector<std::string_view> seen;
    for (const AlgorithmEntry& e : algorithms_for(c)) {
      EXPECT_EQ(e.coll, c) << e.name;
      EXPECT_FALSE(e.name.empty());
      EXPECT_FALSE(e.summary.empty()) << e.name;
      EXPECT_NE(e.summary, "SUMMARY") << e.name;
      EXPECT_TRUE(e.generate && e.cost) << e.name;
      EXPECT_EQ(std::find(seen.begin(), seen.end(), e.name), seen.end()) << "duplicate " << e.name;
      seen.push_back(e.name);
    }
  }
}

// The algorithm x collective matrix the core issue asks for.
TEST(Registry, EveryMissionPairIsRegistered) {
  using C = Collective;
  const std::vector<std::pair<C, std::vector<std::string_view>>> matrix = {
      {C::allreduce, {"naive", "ps", "ring", "tree", "dbtree", "butterfly", "rhd"}},
      {C::reduce_scatter, {"naive", "ps", "ring", "tree", "butterfly", "rhd", "pairwise"}},
      {C::allgather, {"naive", "ps", "ring", "tree", "butterfly", "rhd", "bruck"}},
      {C::alltoall, {"naive", "ps", "ring", "butterfly", "bruck", "pairwise"}},
  };
  for (const auto& [c, names] : matrix)
    for (std::string_view name : names)
      EXPECT_NO_THROW(find_algorithm(c, name)) << to_string(c) << "/" << name << " is missing";
}

}  // namespace
}  // namespace cb
