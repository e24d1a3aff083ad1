// Every registered algorithm, executed by the reference executor, gives the
// collective's result; its schedules pass the validator. Generated from the
// registry, so new algorithms are covered as they are registered.
//
// Three sweeps per (collective, algorithm) entry:
//  - Sweep: p = 1..33, 64, 100; counts 0, 1, p-1, p, p+1 and odd sizes;
//    in place and out of place; exact inputs compared bit-exactly. The
//    datatype and op rotate over the cases (dtype = case % 10, op = case / 10
//    % 5), so every pair occurs many times per entry without the full cross
//    product. Odd sizes are bounded by the total vector (p * count for the
//    per-block collectives): 37 for every p <= 33, 1531 for p <= 16, and
//    100003 (~1e5) for p <= 4.
//  - Types: every datatype x every op (sum only for allgather/alltoall) on
//    p in {1, 2, 3, 5, 8}, counts {1, 2p+1, 67}, both placements; exact inputs.
//  - Segments: entries that pipeline (AlgorithmEntry::segmented) with
//    segments of 1 element, 64 B and 1000 B, p in {2, 3, 5, 8}, counts {1, 37,
//    1531}, both placements, so multi-segment paths run at small sizes.
//  - Random: float datatypes with random inputs, every op, p in {2, 3, 7, 16,
//    33}, counts {p+1, 300}; compared within verify's error_bounds
//    (2 (p+1) u M + p tiny, see transports/reference/verify.hpp).
// Budget (meson runs the tests below in parallel): about 60 s for the whole
// 'algorithms' suite on 2 cores at -O2 with every algorithm registered; the
// Sweep of p = 64 and 100 is the expensive part, hence its short count list.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

#include "tests/algorithms/run_case.hpp"

namespace cb::test {
namespace {

// Stop reporting an entry after a few failing cases: they usually share a
// cause, and the rest would only cost time.
constexpr int kMaxReported = 3;

class Runner {
 public:
  void run(const AlgoCase& c) {
    if (failures_ >= kMaxReported) return;
    const std::string problem = run_case(c);
    if (problem.empty()) return;
    ++failures_;
    ADD_FAILURE() << problem;
  }
  ~Runner() {
    if (failures_ >= kMaxReported)
      ADD_FAILURE() << "stopped after " << kMaxReported << " failing cases";
  }

 private:
  int failures_ = 0;
};

std::vector<std::size_t> sweep_counts(int p) {
  const auto up = static_cast<std::size_t>(p);
  std::vector<std::size_t> counts{0, 1, up - 1, up, up + 1};
  if (p <= 33) counts.push_back(37);
  if (p <= 16) counts.push_back(1531);
  if (p <= 4) counts.push_back(100003);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::string entry_name(const ::testing::TestParamInfo<const AlgorithmEntry*>& info) {
  return fmt::format("{}_{}", to_string(info.param->coll), info.param->name);
}

class SweepTest : public ::testing::TestWithParam<const AlgorithmEntry*> {};

TEST_P(SweepTest, EveryRankCountAndSize) {
  const AlgorithmEntry* e = GetParam();
  std::vector<int> ps;
  for (int p = 1; p <= 33; ++p) ps.push_back(p);
  ps.push_back(64);
  ps.push_back(100);
  Runner runner;
  std::size_t i = 0;
  for (int p : ps)
    for (std::size_t count : sweep_counts(p))
      for (bool in_place : {false, true}) {
        const DataType t = kAllDataTypes[i % std::size(kAllDataTypes)];
        const ReduceOp op =
            kAllReduceOps[(i / std::size(kAllDataTypes)) % std::size(kAllReduceOps)];
        ++i;
        runner.run({e, p, count, t, op, in_place, InputMode::exact});
      }
}

class TypesTest : public ::testing::TestWithParam<const AlgorithmEntry*> {};

TEST_P(TypesTest, EveryDatatypeAndOp) {
  const AlgorithmEntry* e = GetParam();
  Runner runner;
  for (int p : {1, 2, 3, 5, 8})
    for (std::size_t count : {std::size_t{1}, std::size_t(2 * p + 1), std::size_t{67}})
      for (DataType t : kAllDataTypes)
        for (ReduceOp op : kAllReduceOps) {
          if (!is_reducing(e->coll) && op != ReduceOp::sum) continue;
          for (bool in_place : {false, true})
            runner.run({e, p, count, t, op, in_place, InputMode::exact});
        }
}

class SegmentsTest : public ::testing::TestWithParam<const AlgorithmEntry*> {};

TEST_P(SegmentsTest, SmallSegments) {
  const AlgorithmEntry* e = GetParam();
  if (!e->segmented) GTEST_SKIP() << e->name << " does not pipeline";
  Runner runner;
  std::size_t i = 0;
  for (int p : {2, 3, 5, 8})
    for (std::size_t count : {1, 37, 1531})
      for (std::size_t segment : {0, 64, 1000})
        for (bool in_place : {false, true}) {
          const DataType t = kAllDataTypes[i++ % std::size(kAllDataTypes)];
          runner.run({e, p, count, t, ReduceOp::sum, in_place, InputMode::exact,
                      segment == 0 ? element_size(t) : segment});
        }
}

class RandomTest : public ::testing::TestWithParam<const AlgorithmEntry*> {};

TEST_P(RandomTest, FloatsWithinErrorBound) {
  const AlgorithmEntry* e = GetParam();
  Runner runner;
  for (int p : {2, 3, 7, 16, 33})
    for (std::size_t count : {std::size_t(p + 1), std::size_t{300}})
      for (DataType t : {DataType::fp16, DataType::bf16, DataType::fp32, DataType::fp64})
        for (ReduceOp op : kAllReduceOps) {
          if (!is_reducing(e->coll) && op != ReduceOp::sum) continue;
          runner.run({e, p, count, t, op, p % 2 == 0, InputMode::random});
        }
}

// The checks above can fail: a valid schedule with a wrong result and an
// invalid schedule are both caught, with the schedules dumped.
void local_copy_only(const CollParams& p, ScheduleBuilder& b) {
  b.step();
  b.copy({kInput, 0, p.count}, {kOutput, 0, p.count});
}
void unreceived_send(const CollParams& p, ScheduleBuilder& b) {
  b.step();
  b.send((p.rank + 1) % p.p, {kInput, 0, p.count});
  b.copy({kInput, 0, p.count}, {kOutput, 0, p.count});
}
Cost no_cost(const CollParams&) { return {}; }

TEST(RunCase, CatchesWrongResultsAndInvalidSchedules) {
  const AlgorithmEntry wrong{Collective::allreduce, "copy_only", "wrong on purpose",
                             local_copy_only, no_cost, false, "", false};
  EXPECT_EQ(run_case({&wrong, 1, 5, DataType::int32, ReduceOp::sum, false}), "");
  const std::string w = run_case({&wrong, 3, 5, DataType::int32, ReduceOp::sum, false});
  EXPECT_NE(w.find("allreduce/copy_only p=3 count=5 int32 sum out-of-place: wrong result"),
            std::string::npos) << w;
  EXPECT_NE(w.find("rank 0: 5 of 5 output elements wrong"), std::string::npos) << w;
  EXPECT_NE(w.find("failed-schedules/allreduce-copy_only-p3-n5-int32-sum-outofplace.json"),
            std::string::npos) << w;
  const AlgorithmEntry invalid{Collective::allreduce, "unreceived", "invalid on purpose",
                               unreceived_send, no_cost, false, "", false};
  const std::string v = run_case({&invalid, 2, 5, DataType::fp32, ReduceOp::max, true});
  EXPECT_NE(v.find("invalid schedule: step 0: rank 1: send #0 to rank 0 (5 elements) is never "
                   "received"),
            std::string::npos) << v;
  // Leave no dumps behind that would look like real failures.
  const auto dir = std::filesystem::current_path() / "failed-schedules";
  std::filesystem::remove(dir / "allreduce-copy_only-p3-n5-int32-sum-outofplace.json");
  std::filesystem::remove(dir / "allreduce-unreceived-p2-n5-fp32-max-inplace.json");
  if (std::filesystem::is_empty(dir)) std::filesystem::remove(dir);
}

INSTANTIATE_TEST_SUITE_P(Registry, SweepTest, ::testing::ValuesIn(all_algorithms()), entry_name);
INSTANTIATE_TEST_SUITE_P(Registry, TypesTest, ::testing::ValuesIn(all_algorithms()), entry_name);
INSTANTIATE_TEST_SUITE_P(Registry, SegmentsTest, ::testing::ValuesIn(all_algorithms()),
                         entry_name);
INSTANTIATE_TEST_SUITE_P(Registry, RandomTest, ::testing::ValuesIn(all_algorithms()), entry_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SweepTest);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TypesTest);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RandomTest);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SegmentsTest);

}  // namespace
}  // namespace cb::test
