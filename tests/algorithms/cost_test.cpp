// Every algorithm's closed-form cost equals the cost read off its schedules
// (schedule_cost, params.hpp's convention) exactly, and the named algorithms
// have the round counts and volumes of the real algorithm, so a stub fails.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <functional>

#include "algorithms/registry.hpp"
#include "algorithms/schedule_cost.hpp"

namespace cb {
namespace {

class EveryAlgorithm : public ::testing::TestWithParam<const AlgorithmEntry*> {};

std::string entry_name(const ::testing::TestParamInfo<const AlgorithmEntry*>& info) {
  return fmt::format("{}_{}", to_string(info.param->coll), info.param->name);
}

std::string describe(const CollParams& p) {
  return fmt::format("{} p={} count={} {} {}", to_string(p.coll), p.p, p.count,
                     to_string(p.dtype), p.in_place ? "in-place" : "out-of-place");
}

// p = 1..64; counts below, at and above p, uneven, and large enough for
// several pipeline segments; one dtype of each size class (1, 2, 4, 8 bytes)
// for the small counts, fp32 for the large one (runtime: the large count at
// every p dominates; about 2 s per entry at -O2).
TEST_P(EveryAlgorithm, ClosedFormEqualsScheduleCost) {
  const AlgorithmEntry& e = *GetParam();
  int mismatches = 0;
  for (int p = 1; p <= 64; ++p) {
    const std::size_t up = static_cast<std::size_t>(p);
    for (std::size_t count : {std::size_t{1}, up - 1, up, up + 1, 3 * up + 2, std::size_t{1000},
                              std::size_t{70001}}) {
      if (count == 0) continue;
      for (DataType t : {DataType::int8, DataType::fp16, DataType::fp32, DataType::fp64}) {
        if (count == 70001 && t != DataType::fp32) continue;
        if (count == 70001 && p > 16 && p != 64 && e.coll != Collective::allreduce &&
            e.coll != Collective::reduce_scatter)
          continue;  // per-rank counts: the total vector is p*count elements
        CollParams params{e.coll, p, 0, count, t, ReduceOp::sum, p % 2 == 1, 0};
        const Cost closed = closed_form_cost(e, params);
        const Cost derived = schedule_cost(make_all_schedules(e, params));
        if (closed != derived && ++mismatches <= 3)
          ADD_FAILURE() << e.name << " " << describe(params) << ": closed form (alpha "
                        << closed.alpha << ", beta " << closed.beta << " B, gamma "
                        << closed.gamma << " B) != schedule (alpha " << derived.alpha
                        << ", beta " << derived.beta << " B, gamma " << derived.gamma << " B)";
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << "closed form and schedule cost disagree in " << mismatches
                           << " cases (first 3 shown)";
}

// Pipelined algorithms with explicit segment sizes (1 element, 256 B, 4 KiB;
// the large count only in fp32 with the larger segments, for runtime):
// the closed form must follow the segment count too.
TEST_P(EveryAlgorithm, ClosedFormEqualsScheduleCostWithSegments) {
  const AlgorithmEntry& e = *GetParam();
  if (!e.segmented) GTEST_SKIP() << e.name << " does not pipeline";
  int mismatches = 0;
  for (int p = 1; p <= 17; ++p)
    for (std::size_t count : {std::size_t{1}, std::size_t(p + 1), std::size_t{1000}})
      for (DataType t : {DataType::int8, DataType::fp16, DataType::fp32, DataType::fp64})
        for (std::size_t segment : {element_size(t), std::size_t{256}, std::size_t{4096}}) {
          // 1000 elements in 1-element segments is thousands of steps: skip.
          if (count == 1000 && (t != DataType::fp32 || segment == element_size(t))) continue;
          CollParams params{e.coll, p, 0, count, t, ReduceOp::sum, false, segment};
          const Cost closed = closed_form_cost(e, params);
          const Cost derived = schedule_cost(make_all_schedules(e, params));
          if (closed != derived && ++mismatches <= 3)
            ADD_FAILURE() << e.name << " " << describe(params) << " segment " << segment
                          << " B: closed form (alpha " << closed.alpha << ", beta "
                          << closed.beta << " B, gamma " << closed.gamma
                          << " B) != schedule (alpha " << derived.alpha << ", beta "
                          << derived.beta << " B, gamma " << derived.gamma << " B)";
        }
  EXPECT_EQ(mismatches, 0) << "closed form and schedule cost disagree in " << mismatches
                           << " cases (first 3 shown)";
}

TEST_P(EveryAlgorithm, CountZeroIsEmpty) {
  const AlgorithmEntry& e = *GetParam();
  for (int p : {1, 2, 5}) {
    CollParams params{e.coll, p, 0, 0, DataType::fp32, ReduceOp::avg, false, 0};
    for (const Schedule& s : make_all_schedules(e, params)) EXPECT_TRUE(s.steps.empty());
    EXPECT_EQ(closed_form_cost(e, params), Cost{});
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryAlgorithm, ::testing::ValuesIn(all_algorithms()),
                         entry_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EveryAlgorithm);

// Rounds = global steps in which any rank communicates.
int rounds(const std::vector<Schedule>& all) {
  int n = 0;
  for (const Cost& c : per_step_cost(all)) n += c.alpha > 0 ? 1 : 0;
  return n;
}

int lg(int p) { return std::bit_width(static_cast<unsigned>(p)) - 1; }           // floor
int clg(int p) { return p <= 1 ? 0 : std::bit_width(static_cast<unsigned>(p - 1)); }  // ceil
bool pow2(int p) { return std::has_single_bit(static_cast<unsigned>(p)); }

// The structure of the real algorithm, from the cost table in
// algorithms/README.md and the issue. A field that is empty is
// not checked for that algorithm. Volumes use count = p * 16 elements (every
// block non-empty, divisible by p) and one pipeline segment.
struct Shape {
  Collective coll;
  std::string_view algo;
  bool pow2_only;
  std::function<int(int)> rounds;   // communicating steps
  std::function<int(int)> alpha;    // message count along the critical path
  std::function<double(int, double)> beta;  // bytes, given p and n (bytes of the full vector)
  std::function<double(int, double)> gamma;
};

const std::vector<Shape>& shapes() {
  using C = Collective;
  auto pm1 = [](int p) { return p - 1; };
  auto two_pm1 = [](int p) { return 2 * (p - 1); };
  auto twoL = [](int p) { return 2 * clg(p); };
  auto L = [](int p) { return clg(p); };
  auto lgp = [](int p) { return lg(p); };
  auto frac = [](int p, double n) { return (p - 1) * n / p; };
  auto two_frac = [](int p, double n) { return 2 * (p - 1) * n / p; };
  static const std::vector<Shape> table = {
      {C::allreduce, "naive", false, {}, pm1, {}, {}},
      {C::allreduce, "ps", false, {}, two_pm1, {}, {}},
      {C::allreduce, "ring", false, two_pm1, two_pm1, two_frac, frac},
      {C::allreduce, "tree", false, twoL, twoL, {}, {}},
      {C::allreduce, "butterfly", true, lgp, lgp,
       [](int p, double n) { return lg(p) * n; }, [](int p, double n) { return lg(p) * n; }},
      {C::allreduce, "butterfly", false, [](int p) { return pow2(p) ? lg(p) : lg(p) + 2; }, {},
       {}, {}},
      {C::allreduce, "rhd", true, [](int p) { return 2 * lg(p); }, [](int p) { return 2 * lg(p); },
       two_frac, frac},
      {C::allreduce, "rhd", false, [](int p) { return pow2(p) ? 2 * lg(p) : 2 * lg(p) + 2; }, {},
       {}, {}},
      {C::reduce_scatter, "naive", false, {}, pm1, {}, {}},
      {C::reduce_scatter, "ps", false, {}, two_pm1, {}, {}},
      {C::reduce_scatter, "ring", false, pm1, pm1, frac, frac},
      {C::reduce_scatter, "pairwise", false, pm1, pm1, frac, frac},
      {C::reduce_scatter, "rhd", true, lgp, lgp, frac, frac},
      {C::reduce_scatter, "butterfly", true, lgp, lgp, {}, {}},
      {C::reduce_scatter, "tree", false, twoL, twoL, {}, {}},
      {C::allgather, "naive", false, {}, pm1, {}, {}},
      {C::allgather, "ps", false, {}, two_pm1, {}, {}},
      {C::allgather, "ring", false, pm1, pm1, frac, {}},
      {C::allgather, "rhd", true, lgp, lgp, frac, {}},
      {C::allgather, "butterfly", true, lgp, lgp, frac, {}},
      {C::allgather, "bruck", false, L, L, {}, {}},
      {C::allgather, "tree", false, twoL, twoL, {}, {}},
      {C::alltoall, "naive", false, {}, pm1, {}, {}},
      {C::alltoall, "ps", false, {}, two_pm1, {}, {}},
      {C::alltoall, "pairwise", false, pm1, pm1, frac, {}},
      {C::alltoall, "ring", false, pm1, pm1, [](int p, double n) { return (p - 1) * n / 2; }, {}},
      {C::alltoall, "bruck", false, L, L, {}, {}},
      {C::alltoall, "butterfly", true, lgp, lgp, {}, {}},
  };
  return table;
}

class NamedShape : public ::testing::TestWithParam<Shape> {};

TEST_P(NamedShape, RoundsAndVolume) {
  const Shape& sh = GetParam();
  const AlgorithmEntry* e = nullptr;
  for (const AlgorithmEntry& x : algorithms_for(sh.coll))
    if (x.name == sh.algo) e = &x;
  if (!e) GTEST_SKIP() << to_string(sh.coll) << "/" << sh.algo << " is not registered yet";
  for (int p = 2; p <= 64; ++p) {
    if (sh.pow2_only && !pow2(p)) continue;
    // count = 16 per block; the full vector n is p*16 elements for every
    // collective (allreduce count = n; the others' count is per block).
    const std::size_t count =
        sh.coll == Collective::allreduce ? std::size_t(16 * p) : std::size_t{16};
    CollParams params{sh.coll, p, 0, count, DataType::fp32, ReduceOp::sum, false,
                      std::size_t{1} << 40};  // one segment
    const auto all = make_all_schedules(*e, params);
    const Cost c = schedule_cost(all);
    const double n = 16.0 * p * 4;  // bytes of the full vector
    const std::string what = fmt::format("{}/{} p={}", to_string(sh.coll), sh.algo, p);
    if (sh.rounds) { EXPECT_EQ(rounds(all), sh.rounds(p)) << what << ": rounds"; }
    if (sh.alpha) { EXPECT_EQ(c.alpha, sh.alpha(p)) << what << ": alpha (messages)"; }
    if (sh.beta) { EXPECT_DOUBLE_EQ(c.beta, sh.beta(p, n)) << what << ": beta (bytes)"; }
    if (sh.gamma) { EXPECT_DOUBLE_EQ(c.gamma, sh.gamma(p, n)) << what << ": gamma (bytes)"; }
    if (HasFailure()) return;  // one p is enough to see what is wrong
  }
}

INSTANTIATE_TEST_SUITE_P(
    CostTable, NamedShape, ::testing::ValuesIn(shapes()),
    [](const ::testing::TestParamInfo<Shape>& info) {
      return fmt::format("{}_{}{}", to_string(info.param.coll), info.param.algo,
                         info.param.pow2_only ? "_pow2" : "_any_p");
    });

}  // namespace
}  // namespace cb
