// The reference executor follows schedule.hpp's semantics on hand-built
// schedules: FIFO matching per pair, reduce-receives applied after all
// messages, in-place aliasing, the avg division, poisoned fresh memory.
#include <gtest/gtest.h>

#include <cstring>

#include "algorithms/check.hpp"
#include "algorithms/validate.hpp"
#include "transports/reference/reference.hpp"

namespace cb {
namespace {

std::vector<std::byte> bytes_of(std::vector<std::int32_t> v) {
  std::vector<std::byte> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
std::vector<std::int32_t> ints_of(const std::vector<std::byte>& b) {
  std::vector<std::int32_t> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

Schedule blank(Collective c, int p, int rank, std::size_t count, int steps, bool in_place = false,
               ReduceOp op = ReduceOp::sum) {
  Schedule s;
  s.coll = c;
  s.algorithm = "handmade";
  s.p = p;
  s.rank = rank;
  s.count = count;
  s.dtype = DataType::int32;
  s.op = op;
  s.in_place = in_place;
  s.steps.resize(static_cast<std::size_t>(steps));
  s.total_steps = static_cast<std::uint64_t>(steps);
  return s;
}

TEST(Reference, MessagesBetweenAPairMatchInOrder) {
  // alltoall p=2, count 2: rank 0 sends its block for rank 1 as two messages;
  // rank 1 receives the first into output[2, 3) and the second into [3, 4).
  std::vector<Schedule> all{blank(Collective::alltoall, 2, 0, 2, 1),
                            blank(Collective::alltoall, 2, 1, 2, 1)};
  all[0].steps[0].sends = {{1, {kInput, 2, 1}}, {1, {kInput, 3, 1}}};
  all[1].steps[0].recvs = {{0, {kOutput, 0, 1}, RecvMode::copy},
                           {0, {kOutput, 1, 1}, RecvMode::copy}};
  all[1].steps[0].sends = {{0, {kInput, 0, 2}}};
  all[0].steps[0].recvs = {{1, {kOutput, 2, 2}, RecvMode::copy}};
  all[0].steps[0].locals = {{LocalKind::copy, {kInput, 0, 2}, {kOutput, 0, 2}}};
  all[1].steps[0].locals = {{LocalKind::copy, {kInput, 2, 2}, {kOutput, 2, 2}}};
  ASSERT_TRUE(validate(all).ok) << validate(all).message;
  const std::vector<std::vector<std::byte>> in{bytes_of({0, 1, 2, 3}), bytes_of({10, 11, 12, 13})};
  const auto out = run_reference(all, in);
  EXPECT_EQ(ints_of(out[0]), (std::vector<std::int32_t>{0, 1, 10, 11}));
  EXPECT_EQ(ints_of(out[1]), (std::vector<std::int32_t>{2, 3, 12, 13}));
}

TEST(Reference, ReduceReceivesAndLocalsInOrder) {
  // allreduce p=3, count 2: rank 0 gets both peers' inputs as reduce-receives
  // into one region, then doubles it with a local reduce of itself, then the
  // others get the result; every rank divides by p at the end (avg).
  std::vector<Schedule> all;
  for (int r = 0; r < 3; ++r) all.push_back(blank(Collective::allreduce, 3, r, 2, 3, false, ReduceOp::avg));
  all[0].steps[0].locals = {{LocalKind::copy, {kInput, 0, 2}, {kOutput, 0, 2}}};
  for (int r = 1; r < 3; ++r) {
    all[r].steps[1].sends = {{0, {kInput, 0, 2}}};
    all[0].steps[1].recvs.push_back({r, {kOutput, 0, 2}, RecvMode::reduce});
    all[0].steps[2].sends.push_back({r, {kOutput, 0, 2}});
    all[r].steps[2].recvs = {{0, {kOutput, 0, 2}, RecvMode::copy}};
  }
  all[0].steps[1].locals = {{LocalKind::reduce, {kOutput, 0, 2}, {kOutput, 0, 2}}};
  for (auto& s : all) {
    s.steps.resize(4);
    s.total_steps = 4;
    s.steps[3].locals = {{LocalKind::average, {}, {kOutput, 0, 2}}};
  }
  ASSERT_TRUE(validate(all).ok) << validate(all).message;
  const std::vector<std::vector<std::byte>> in{bytes_of({1, -7}), bytes_of({2, 0}), bytes_of({4, 0})};
  const auto out = run_reference(all, in);
  // 2 * (1 + 2 + 4) / 3 = 4 and 2 * -7 / 3 = -4 (integers truncate).
  EXPECT_EQ(ints_of(out[0]), (std::vector<std::int32_t>{4, -4}));
  EXPECT_EQ(ints_of(out[1]), (std::vector<std::int32_t>{4, -4}));
  EXPECT_EQ(ints_of(out[2]), (std::vector<std::int32_t>{4, -4}));
}

TEST(Reference, InPlaceViewsShareMemory) {
  // In-place allgather p=2, count 1: rank r's input already sits at output[r].
  std::vector<Schedule> all{blank(Collective::allgather, 2, 0, 1, 1, true),
                            blank(Collective::allgather, 2, 1, 1, 1, true)};
  for (int r = 0; r < 2; ++r) {
    all[r].steps[0].sends = {{1 - r, {kOutput, std::size_t(r), 1}}};
    all[r].steps[0].recvs = {{1 - r, {kOutput, std::size_t(1 - r), 1}, RecvMode::copy}};
  }
  ASSERT_TRUE(validate(all).ok) << validate(all).message;
  const auto out = run_reference(all, std::vector<std::vector<std::byte>>{bytes_of({5}), bytes_of({6})});
  EXPECT_EQ(ints_of(out[0]), (std::vector<std::int32_t>{5, 6}));
  EXPECT_EQ(ints_of(out[1]), (std::vector<std::int32_t>{5, 6}));
}

TEST(Reference, FreshMemoryIsPoisoned) {
  // A schedule that never writes its output (invalid) shows the poison.
  std::vector<Schedule> all{blank(Collective::allreduce, 1, 0, 2, 0)};
  EXPECT_FALSE(validate(all).ok);
  const auto out = run_reference(all, std::vector<std::vector<std::byte>>{bytes_of({1, 2})});
  for (std::byte b : out[0]) EXPECT_EQ(b, kPoison);
}

TEST(Reference, UnmatchedMessagesThrow) {
  std::vector<Schedule> all{blank(Collective::allreduce, 2, 0, 1, 1),
                            blank(Collective::allreduce, 2, 1, 1, 1)};
  all[0].steps[0].recvs = {{1, {kOutput, 0, 1}, RecvMode::copy}};
  const std::vector<std::vector<std::byte>> in{bytes_of({1}), bytes_of({2})};
  EXPECT_THROW(run_reference(all, in), InternalError);
  all[0].steps[0].recvs.clear();
  all[1].steps[0].sends = {{0, {kInput, 0, 1}}};
  EXPECT_THROW(run_reference(all, in), InternalError);
}

}  // namespace
}  // namespace cb
