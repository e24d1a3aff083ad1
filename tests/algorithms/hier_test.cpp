// The hierarchical compositions (algorithms/hierarchical): every hier: and
// hier2d: name of every collective, executed by the reference executor on
// node layouts N x K up to 8 x 8 (and uneven ones for hier:), gives the
// collective's result bit-exactly; its closed-form cost equals the cost read
// off its schedules; windowed builds equal the whole schedule; bad names and
// layouts are refused with one line.
//
// Coverage is rotated to stay within the suite's budget: every name runs on a
// few fixed layouts (2 x 2, 3 x 2, 2 x 3), and every layout N, K in 1..8 runs
// with names taken in turn, both placements, counts 1, K+1 and 37 (uneven
// against K and p) and datatypes/ops in rotation.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "algorithms/hierarchical/compose.hpp"
#include "algorithms/schedule_cost.hpp"
#include "tests/algorithms/run_case.hpp"

namespace cb::test {
namespace {

constexpr int kMaxReported = 3;

class Runner {
 public:
  void run(const AlgoCase& c) {
    ++cases_;
    if (failures_ >= kMaxReported) return;
    const std::string problem = run_case(c);
    if (problem.empty()) return;
    ++failures_;
    ADD_FAILURE() << problem;
  }
  int cases() const { return cases_; }

 private:
  int failures_ = 0;
  int cases_ = 0;
};

std::string coll_name(const ::testing::TestParamInfo<Collective>& info) {
  return std::string(to_string(info.param));
}

class EveryName : public ::testing::TestWithParam<Collective> {};

TEST_P(EveryName, ExactOnSmallLayouts) {
  const Collective coll = GetParam();
  Runner runner;
  std::size_t i = 0;
  for (const std::string& name : all_composite_names(coll)) {
    const AlgorithmEntry& e = find_algorithm(coll, name);
    for (auto [nodes, k] : {std::pair{2, 2}, std::pair{3, 2}, std::pair{2, 3}})
      for (std::size_t count : {std::size_t{1}, std::size_t{7}})
        for (bool in_place : {false, true}) {
          const DataType t = kAllDataTypes[i % std::size(kAllDataTypes)];
          const ReduceOp op = is_reducing(coll) ? kAllReduceOps[(i / 3) % std::size(kAllReduceOps)]
                                                : ReduceOp::sum;
          ++i;
          runner.run({&e, nodes * k, count, t, op, in_place, InputMode::exact, 0, k});
        }
  }
  EXPECT_GT(runner.cases(), 100);
}

TEST_P(EveryName, ExactOnEveryLayoutUpTo8x8) {
  const Collective coll = GetParam();
  const std::vector<std::string> names = all_composite_names(coll);
  Runner runner;
  std::size_t i = 0;
  for (int nodes = 1; nodes <= 8; ++nodes)
    for (int k = 1; k <= 8; ++k)
      for (std::size_t count : {std::size_t{1}, std::size_t(k + 1), std::size_t{37}})
        for (bool in_place : {false, true}) {
          const AlgorithmEntry& e = find_algorithm(coll, names[i % names.size()]);
          const DataType t = kAllDataTypes[(i / 2) % std::size(kAllDataTypes)];
          const ReduceOp op = is_reducing(coll) ? kAllReduceOps[(i / 5) % std::size(kAllReduceOps)]
                                                : ReduceOp::sum;
          ++i;
          // Large per-rank counts only where p is small: the total is p * count.
          if (!is_reducing(coll) && count == 37 && nodes * k > 32) continue;
          runner.run({&e, nodes * k, count, t, op, in_place, InputMode::exact, 0, k});
        }
}

TEST_P(EveryName, SegmentedPhasesStayExact) {
  const Collective coll = GetParam();
  Runner runner;
  for (const std::string& name : all_composite_names(coll)) {
    const AlgorithmEntry& e = find_algorithm(coll, name);
    if (!e.segmented) continue;
    runner.run({&e, 6, 37, DataType::int32, ReduceOp::sum, false, InputMode::exact, 8, 3});
  }
}

TEST_P(EveryName, ClosedFormEqualsScheduleCost) {
  const Collective coll = GetParam();
  int mismatches = 0;
  for (const std::string& name : all_composite_names(coll)) {
    const AlgorithmEntry& e = find_algorithm(coll, name);
    for (auto [nodes, k] : {std::pair{1, 4}, std::pair{3, 1}, std::pair{2, 3}, std::pair{4, 4},
                            std::pair{3, 5}})
      for (std::size_t count : {std::size_t{1}, std::size_t{13}}) {
        const CollParams params{coll, nodes * k, 0, count, DataType::fp32, ReduceOp::sum,
                                false, 0, k};
        const Cost closed = closed_form_cost(e, params);
        const Cost derived = schedule_cost(make_all_schedules(e, params));
        if (closed != derived && ++mismatches <= 3)
          ADD_FAILURE() << name << " p=" << nodes * k << " K=" << k << " count=" << count
                        << ": closed form (" << closed.alpha << ", " << closed.beta << ", "
                        << closed.gamma << ") != schedule (" << derived.alpha << ", "
                        << derived.beta << ", " << derived.gamma << ")";
      }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_P(EveryName, WindowsEqualTheWholeSchedule) {
  const Collective coll = GetParam();
  const std::vector<std::string> names = all_composite_names(coll);
  for (std::size_t n = 0; n < names.size(); n += 5) {
    const AlgorithmEntry& e = find_algorithm(coll, names[n]);
    CollParams params{coll, 6, 0, 11, DataType::fp32, ReduceOp::sum, n % 2 == 1, 0, 3};
    for (int r = 0; r < params.p; ++r) {
      params.rank = r;
      const Schedule whole = make_schedule(e, params);
      for (std::uint64_t begin = 0; begin < whole.total_steps + 2; begin += 2) {
        const Schedule w = make_schedule(e, params, begin, begin + 2);
        const std::string where = fmt::format("{} rank {} window [{}, {})", names[n], r, begin,
                                              begin + 2);
        ASSERT_EQ(w.total_steps, whole.total_steps) << where;
        ASSERT_EQ(w.scratch_counts, whole.scratch_counts) << where;
        for (std::size_t s = 0; s < w.steps.size(); ++s) {
          const Step& a = w.steps[s];
          const Step& b = whole.steps[begin + s];
          ASSERT_EQ(a.sends.size(), b.sends.size()) << where;
          ASSERT_EQ(a.recvs.size(), b.recvs.size()) << where;
          ASSERT_EQ(a.locals.size(), b.locals.size()) << where;
          for (std::size_t m = 0; m < a.sends.size(); ++m) {
            EXPECT_EQ(a.sends[m].peer, b.sends[m].peer) << where;
            EXPECT_EQ(a.sends[m].src, b.sends[m].src) << where;
          }
          for (std::size_t m = 0; m < a.recvs.size(); ++m) EXPECT_EQ(a.recvs[m].dst, b.recvs[m].dst) << where;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Hier, EveryName,
                         ::testing::Values(Collective::allreduce, Collective::reduce_scatter,
                                           Collective::allgather, Collective::alltoall),
                         coll_name);

// One leader per node works on uneven layouts (the last node short) and with
// p not a power of two; the multi-leader form refuses them with one line.
TEST(Hier, LeaderFormRunsOnUnevenLayouts) {
  Runner runner;
  std::size_t i = 0;
  const std::vector<std::string> names = all_composite_names(Collective::allreduce);
  for (int p = 2; p <= 23; ++p)
    for (int k = 2; k <= 8; ++k) {
      if (p % k == 0) continue;
      std::string name;
      do name = names[i++ % names.size()];
      while (!name.starts_with("hier:"));
      const AlgorithmEntry& e = find_algorithm(Collective::allreduce, name);
      runner.run({&e, p, 13, kAllDataTypes[i % 10], kAllReduceOps[i % 5], i % 2 == 0,
                  InputMode::exact, 0, k});
      const CollParams params{Collective::allreduce, p, 0, 13, DataType::fp32, ReduceOp::sum,
                              false, 0, k};
      EXPECT_EQ(closed_form_cost(e, params), schedule_cost(make_all_schedules(e, params)))
          << name << " p=" << p << " K=" << k;
    }
  EXPECT_GT(runner.cases(), 50);
}

TEST(Hier, UnevenLayoutsAreRefusedInOneLineButByHierAllreduce) {
  for (const auto& [coll, name] :
       {std::pair{Collective::allreduce, "hier2d:ring/rhd"},
        std::pair{Collective::reduce_scatter, "hier2d:ring/ring"},
        std::pair{Collective::reduce_scatter, "hier:tree/ring"},
        std::pair{Collective::allgather, "hier:ps/bruck"},
        std::pair{Collective::allgather, "hier2d:bruck/ring"},
        std::pair{Collective::alltoall, "hier2d:pairwise/bruck"}}) {
    const AlgorithmEntry& e = find_algorithm(coll, name);
    const CollParams params{coll, 7, 0, 5, DataType::fp32, ReduceOp::sum, false, 0, 3};
    try {
      (void)make_schedule(e, params);
      ADD_FAILURE() << e.name << " ran on 7 ranks at 3 per node";
    } catch (const UsageError& err) {
      const std::string msg = err.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      EXPECT_NE(msg.find("7 ranks at 3 per node leave 1 on the last node"), std::string::npos)
          << msg;
    }
    EXPECT_THROW((void)hierarchy_note(e, params), UsageError);
  }
}

TEST(Hier, DegenerateLayoutsRunFlatWithANote) {
  const AlgorithmEntry& e = find_algorithm(Collective::allreduce, "hier2d:ring/rhd");
  CollParams params{Collective::allreduce, 4, 0, 8, DataType::fp32, ReduceOp::sum, false, 0, 0};
  EXPECT_NE(hierarchy_note(e, params).find("on one node (4 ranks)"), std::string::npos);
  // On one node hier2d:ring/X is ring reduce-scatter + ring all-gather: flat ring's cost.
  EXPECT_EQ(closed_form_cost(e, params),
            closed_form_cost(find_algorithm(Collective::allreduce, "ring"), params));
  params.ranks_per_node = 1;
  EXPECT_NE(hierarchy_note(e, params).find("one rank per node"), std::string::npos);
  EXPECT_EQ(closed_form_cost(e, params),
            closed_form_cost(find_algorithm(Collective::allreduce, "rhd"), params));
  params.ranks_per_node = 2;
  EXPECT_EQ(hierarchy_note(e, params), "");
  EXPECT_EQ(hierarchy_note(find_algorithm(Collective::allreduce, "ring"), params), "");
}

// The inter-node phase of hier2d moves 1/K of the vector per rank: with ring
// inside and outside, the textbook two-level row (ring RS + AG over K ranks
// of n, ring all-reduce over N ranks of n/K).
TEST(Hier, MultiLeaderAllreduceCostIsTheTwoLevelRow) {
  const int nodes = 4, k = 4;
  const std::size_t n = 4096;  // fp32: divisible by K and by N*K
  const CollParams params{Collective::allreduce, nodes * k, 0, n, DataType::fp32, ReduceOp::sum,
                          false, 0, k};
  const Cost c = closed_form_cost(find_algorithm(Collective::allreduce, "hier2d:ring/ring"), params);
  const double bytes = 4.0 * n;
  EXPECT_DOUBLE_EQ(c.alpha, 2.0 * (k - 1) + 2.0 * (nodes - 1));
  EXPECT_DOUBLE_EQ(c.beta, 2.0 * (k - 1) * bytes / k + 2.0 * (nodes - 1) * bytes / k / nodes);
  EXPECT_DOUBLE_EQ(c.gamma, (k - 1) * bytes / k + (nodes - 1) * bytes / k / nodes);
}

TEST(Hier, BadNamesAreRefusedInOneLine) {
  const auto message = [](Collective coll, std::string_view name) {
    try {
      (void)find_algorithm(coll, name);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  for (auto [coll, name, expect] :
       {std::tuple{Collective::allreduce, "hier:ring/ring", "inner algorithm 'ring'"},
        std::tuple{Collective::allreduce, "hier2d:bruck/ring", "inner algorithm 'bruck'"},
        std::tuple{Collective::allreduce, "hier2d:ring/quantum", "'quantum'"},
        std::tuple{Collective::allreduce, "hier2d:ring", "INNER/OUTER"},
        std::tuple{Collective::allreduce, "hierx:ring/ring", "unknown hierarchical form"},
        std::tuple{Collective::allreduce, "hier2d:ring/hier:tree/ring", "itself hierarchical"},
        std::tuple{Collective::alltoall, "hier:tree/ring", "not defined for alltoall"}}) {
    const std::string m = message(coll, name);
    EXPECT_NE(m.find(expect), std::string::npos) << name << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  // Entries are created once and stay put.
  EXPECT_EQ(&find_algorithm(Collective::allreduce, "hier:tree/rhd"),
            &find_algorithm(Collective::allreduce, "hier:tree/rhd"));
}

}  // namespace
}  // namespace cb::test
