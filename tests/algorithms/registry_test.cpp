// Bad names and undefined (collective, algorithm) pairs give one line that
// names the bad value and lists the valid ones; README's algorithm matrix is
// the registry's.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"

namespace cb {
namespace {

// The cells of one markdown table row, trimmed.
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  std::getline(ss, cell, '|');  // before the first '|'
  while (std::getline(ss, cell, '|')) {
    const auto b = cell.find_first_not_of(' ');
    const auto e = cell.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

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

// kDirect is what the schedules do: at p = 5 and 8, a flagged algorithm has
// a step in which every rank receives from all p - 1 others; no other
// algorithm has (ps's root receives from all of them, the other ranks do not).
TEST(Registry, DirectFlagMatchesTheSchedules) {
  for (const AlgorithmEntry* e : all_algorithms())
    for (const int p : {5, 8}) {
      bool all_hear_all = false;
      std::vector<std::vector<std::set<int>>> by_rank;  // [rank][step]: who it receives from
      for (int r = 0; r < p; ++r) {
        CollParams params;
        params.coll = e->coll;
        params.p = p;
        params.rank = r;
        params.count = 64;
        const Schedule s = make_schedule(*e, params);
        by_rank.emplace_back();
        for (const Step& st : s.steps) {
          by_rank.back().emplace_back();
          for (const Recv& rv : st.recvs) by_rank.back().back().insert(rv.peer);
        }
      }
      for (std::size_t step = 0; !all_hear_all && step < by_rank[0].size(); ++step) {
        bool every = true;
        for (int r = 0; r < p && every; ++r)
          every = step < by_rank[r].size() && by_rank[r][step].size() == std::size_t(p - 1);
        all_hear_all = every;
      }
      EXPECT_EQ(all_hear_all, e->direct) << to_string(e->coll) << "/" << e->name << " p=" << p;
    }
}

// README.md's algorithm x collective matrix (the "Algorithms" table: one
// row per algorithm, "yes..." or "–" per collective) says exactly what the
// registry holds: every pair it marks exists, every pair it omits does not.
TEST(Registry, ReadmeMatrixMatchesTheRegistry) {
  const char* root = std::getenv("CB_SOURCE_ROOT");
  ASSERT_NE(root, nullptr) << "CB_SOURCE_ROOT is not set (meson sets it)";
  std::ifstream in(std::string(root) + "/README.md");
  ASSERT_TRUE(in) << root << "/README.md";
  std::vector<std::string> header;
  std::set<std::pair<std::string, std::string>> readme;  // (collective, algorithm)
  std::size_t rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| algorithm |", 0) == 0) {
      header = cells_of(line);
      continue;
    }
    if (header.empty() || line.rfind("| `", 0) != 0) continue;
    const std::vector<std::string> cells = cells_of(line);
    const std::string name = cells[0].substr(1, cells[0].find('`', 1) - 1);
    ++rows;
    for (std::size_t i = 1; i < cells.size() && i < header.size(); ++i)
      if (cells[i].rfind("yes", 0) == 0) readme.insert({header[i], name});
  }
  ASSERT_GT(rows, 0u) << "no algorithm table found in README.md";
  std::set<std::pair<std::string, std::string>> registry;
  for (const AlgorithmEntry* e : all_algorithms())
    registry.insert({std::string(to_string(e->coll)), std::string(e->name)});
  EXPECT_EQ(readme, registry);
}

}  // namespace
}  // namespace cb
