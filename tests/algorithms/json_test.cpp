// Schedule sets survive a JSON round trip unchanged (so a dumped failing case
// replays exactly), and bad files give a UsageError naming the file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "algorithms/registry.hpp"
#include "algorithms/schedule_cost.hpp"
#include "algorithms/schedule_json.hpp"
#include "algorithms/validate.hpp"

namespace cb {
namespace {

void expect_equal(const Schedule& a, const Schedule& b) {
  EXPECT_EQ(a.coll, b.coll);
  EXPECT_EQ(a.algorithm, b.algorithm);
  EXPECT_EQ(a.p, b.p);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.in_place, b.in_place);
  EXPECT_EQ(a.segment_bytes, b.segment_bytes);
  EXPECT_EQ(a.scratch_counts, b.scratch_counts);
  EXPECT_EQ(a.first_step, b.first_step);
  EXPECT_EQ(a.total_steps, b.total_steps);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    const Step &x = a.steps[i], &y = b.steps[i];
    ASSERT_EQ(x.sends.size(), y.sends.size());
    ASSERT_EQ(x.recvs.size(), y.recvs.size());
    ASSERT_EQ(x.locals.size(), y.locals.size());
    for (std::size_t k = 0; k < x.sends.size(); ++k) {
      EXPECT_EQ(x.sends[k].peer, y.sends[k].peer);
      EXPECT_TRUE(x.sends[k].src == y.sends[k].src);
    }
    for (std::size_t k = 0; k < x.recvs.size(); ++k) {
      EXPECT_EQ(x.recvs[k].peer, y.recvs[k].peer);
      EXPECT_EQ(x.recvs[k].mode, y.recvs[k].mode);
      EXPECT_TRUE(x.recvs[k].dst == y.recvs[k].dst);
    }
    for (std::size_t k = 0; k < x.locals.size(); ++k) {
      EXPECT_EQ(x.locals[k].kind, y.locals[k].kind);
      EXPECT_TRUE(x.locals[k].dst == y.locals[k].dst);
      if (x.locals[k].kind != LocalKind::average) {
        EXPECT_TRUE(x.locals[k].src == y.locals[k].src);
      }
    }
  }
}

TEST(ScheduleJson, EveryAlgorithmRoundTrips) {
  for (const AlgorithmEntry* e : all_algorithms()) {
    for (bool in_place : {false, true}) {
      CollParams params{e->coll, 5, 0, 7, DataType::bf16, ReduceOp::avg, in_place, 0};
      const auto all = make_all_schedules(*e, params);
      const auto back = schedules_from_json(schedules_to_json(all));
      ASSERT_EQ(back.size(), all.size());
      for (std::size_t r = 0; r < all.size(); ++r) expect_equal(all[r], back[r]);
    }
  }
}

TEST(ScheduleJson, HandBuiltRoundTripsThroughAFile) {
  Schedule s;
  s.coll = Collective::reduce_scatter;
  s.algorithm = "handmade";
  s.p = 2;
  s.rank = 1;
  s.count = 3;
  s.dtype = DataType::uint64;
  s.op = ReduceOp::max;
  s.in_place = true;
  s.segment_bytes = 4096;
  s.scratch_counts = {3, 11};
  s.total_steps = 1;
  s.steps.push_back({{{0, {kInput, 1, 2}}},
                     {{0, {kScratch0 + 1, 4, 2}, RecvMode::reduce}},
                     {{LocalKind::copy, {kInput, 0, 3}, {kScratch0, 0, 3}},
                      {LocalKind::average, {}, {kOutput, 0, 3}}}});
  const auto path = std::filesystem::temp_directory_path() / "collbench-json-test.json";
  write_schedules(path.string(), std::vector{s});
  const auto back = read_schedules(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(back.size(), 1u);
  expect_equal(s, back[0]);
}

std::string usage_error_of(const std::string& path) {
  try {
    read_schedules(path);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no UsageError";
}

TEST(ScheduleJson, BadFilesNameThePathAndTheProblem) {
  EXPECT_NE(usage_error_of("/nonexistent/x.json").find("'/nonexistent/x.json'"),
            std::string::npos);
  const auto path = std::filesystem::temp_directory_path() / "collbench-json-bad.json";
  for (const char* text : {"{not json", "{\"p\": 2}", "[{\"coll\": \"allgatherv\"}]"}) {
    std::ofstream(path) << text;
    const std::string msg = usage_error_of(path.string());
    EXPECT_EQ(msg.rfind(path.string() + ": ", 0), 0u) << msg;
  }
  std::ofstream(path) << "[{\"coll\": \"allgatherv\"}]";
  EXPECT_NE(usage_error_of(path.string()).find("'allgatherv'"), std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cb
