// The validator rejects each kind of broken schedule with a message that names
// the step, the rank and the offending operation, and accepts correct ones.
#include <gtest/gtest.h>

#include "algorithms/check.hpp"
#include "algorithms/interval_set.hpp"
#include "algorithms/validate.hpp"

namespace cb {
namespace {

// A 2-rank allreduce of `n` elements: in step 0 each rank sends its input to
// the other into scratch (and, out of place, copies input to output); in step
// 1 it reduces the scratch into its output. Tests break it.
std::vector<Schedule> exchange(std::size_t n = 8, bool in_place = false) {
  std::vector<Schedule> all(2);
  for (int r = 0; r < 2; ++r) {
    Schedule& s = all[r];
    s.coll = Collective::allreduce;
    s.algorithm = "handmade";
    s.p = 2;
    s.rank = r;
    s.count = n;
    s.in_place = in_place;
    s.scratch_counts = {n};
    s.steps.resize(2);
    s.total_steps = 2;
    Step& st = s.steps[0];
    st.sends.push_back({1 - r, {kInput, 0, n}});
    st.recvs.push_back({1 - r, {kScratch0, 0, n}, RecvMode::copy});
    if (!in_place) st.locals.push_back({LocalKind::copy, {kInput, 0, n}, {kOutput, 0, n}});
    s.steps[1].locals.push_back({LocalKind::reduce, {kScratch0, 0, n}, {kOutput, 0, n}});
  }
  return all;
}

void expect_rejected(const std::vector<Schedule>& all, const std::string& fragment) {
  const ValidationResult r = validate(all);
  EXPECT_FALSE(r.ok) << "expected a violation containing: " << fragment;
  EXPECT_NE(r.message.find(fragment), std::string::npos)
      << "message: " << r.message << "\nexpected to contain: " << fragment;
}

TEST(Validate, AcceptsCorrectSchedules) {
  EXPECT_TRUE(validate(exchange()).ok) << validate(exchange()).message;
  EXPECT_TRUE(validate(exchange(8, true)).ok) << validate(exchange(8, true)).message;
  EXPECT_TRUE(validate(exchange(0)).ok);
}

TEST(Validate, SizeMismatch) {
  auto all = exchange();
  all[1].steps[0].recvs[0].dst.count = 7;
  expect_rejected(all, "step 0: rank 0 sends 8 elements to rank 1");
  expect_rejected(all, "which receives 7 from rank 0");
}

TEST(Validate, UnmatchedSend) {
  auto all = exchange();
  all[0].steps[0].sends.push_back({1, {kInput, 0, 2}});
  expect_rejected(all, "step 0: rank 0: send #1 to rank 1 (2 elements) is never received");
}

TEST(Validate, UnmatchedReceive) {
  auto all = exchange();
  all[0].steps[0].recvs.push_back({1, {kScratch0, 0, 1}, RecvMode::reduce});
  expect_rejected(all, "step 0: rank 0: reduce-receive #1 from rank 1 (1 elements) has no "
                       "matching send");
}

TEST(Validate, MessagesMatchInOrderWithinAPair) {
  // Two messages 0 -> 1 of sizes 3 and 5, received as 5 then 3: the first
  // send must match the first receive.
  auto all = exchange();
  all[0].steps[0].sends = {{1, {kInput, 0, 3}}, {1, {kInput, 3, 5}}};
  all[1].steps[0].recvs = {{0, {kScratch0, 0, 5}, RecvMode::copy},
                           {0, {kScratch0, 5, 3}, RecvMode::copy}};
  expect_rejected(all, "rank 0 sends 3 elements to rank 1");
}

TEST(Validate, RegionOutOfBounds) {
  auto all = exchange();
  all[0].steps[0].sends[0].src = {kInput, 4, 5};
  all[1].steps[0].recvs[0].dst = {kScratch0, 0, 5};
  expect_rejected(all, "step 0: rank 0: send #0 to rank 1 region input[4, 9) is out of bounds "
                       "of input (8 elements)");
}

TEST(Validate, UndeclaredScratch) {
  auto all = exchange();
  all[1].steps[0].recvs[0].dst.buf = kScratch0 + 1;
  expect_rejected(all, "uses buffer id 3, which is not declared");
}

TEST(Validate, UninitialisedScratchRead) {
  auto all = exchange();
  // Rank 0 reduces from scratch1, which nothing ever wrote.
  all[0].scratch_counts.push_back(8);
  all[0].steps[1].locals[0].src.buf = kScratch0 + 1;
  expect_rejected(all, "step 1: rank 0: local reduce #0 reads scratch1[0, 8), but element 0 of "
                       "scratch1 holds no data yet");
}

TEST(Validate, PartlyUninitialisedSend) {
  // Rank 1 receives only scratch0[0, 6), then sends scratch0[0, 8) on.
  auto all = exchange();
  all[0].steps[0].sends[0].src.count = 6;
  all[1].steps[0].recvs[0].dst.count = 6;
  all[1].steps[1].locals[0].src.count = 6;
  all[1].steps[1].locals[0].dst.count = 6;
  for (auto& s : all) s.steps.emplace_back(), s.total_steps = 3;
  all[1].steps[2].sends.push_back({0, {kScratch0, 0, 8}});
  all[0].steps[2].recvs.push_back({1, {kScratch0, 0, 8}, RecvMode::copy});
  expect_rejected(all, "step 2: rank 1: send #0 to rank 0 reads scratch0[0, 8), but element 6 "
                       "of scratch0 holds no data yet");
}

TEST(Validate, OutOfPlaceInputWrite) {
  auto all = exchange();
  all[1].steps[0].recvs[0].dst = {kInput, 0, 8};
  expect_rejected(all, "step 0: rank 1: copy-receive #0 from rank 0 writes input[0, 8), but an "
                       "out-of-place input is read-only");
}

TEST(Validate, WriteOfARegionASendReads) {
  auto all = exchange(8, true);  // in place, so input may be written at all
  all[0].steps[0].locals.push_back({LocalKind::copy, {kScratch0, 0, 2}, {kInput, 6, 2}});
  expect_rejected(all, "step 0: rank 0: local copy #0 writes input[6, 8), which send #0 to rank "
                       "1 reads (input[0, 8)) in the same step");
}

TEST(Validate, InPlaceAliasingIsSeen) {
  // In place, allreduce's input and output are the same memory: receiving
  // into output[0, 8) while sending input[0, 8) is a hazard, although the
  // buffer ids differ.
  auto all = exchange(8, true);
  all[0].steps[0].recvs[0].dst = {kOutput, 0, 8};
  expect_rejected(all, "step 0: rank 0: copy-receive #0 from rank 1 writes output[0, 8), which "
                       "send #0 to rank 1 reads (input[0, 8)) in the same step");
  // Out of place the same receive is fine.
  auto oop = exchange(8, false);
  oop[0].steps[0].recvs[0].dst = {kOutput, 0, 8};
  oop[0].steps[0].locals.clear();
  oop[0].steps[1].locals = {{LocalKind::reduce, {kInput, 0, 8}, {kOutput, 0, 8}}};
  EXPECT_TRUE(validate(oop).ok) << validate(oop).message;
}

TEST(Validate, CopyReceiveOverlapsAnotherWrite) {
  auto all = exchange();
  all[0].steps[0].sends.push_back({1, {kInput, 0, 2}});
  all[1].steps[0].recvs.push_back({0, {kScratch0, 6, 2}, RecvMode::reduce});
  expect_rejected(all, "overlapping reduce-receive #1 from rank 0 (scratch0[6, 8)); a "
                       "copy-receive must overlap nothing else written in its step");
  all = exchange();
  all[1].steps[0].locals.push_back({LocalKind::copy, {kInput, 0, 1}, {kScratch0, 3, 1}});
  expect_rejected(all, "step 0: rank 1: copy-receive #0 from rank 0 writes scratch0[0, 8), "
                       "overlapping local copy #1 (scratch0[3, 4))");
}

TEST(Validate, ReduceReceivesMayOverlap) {
  // Rank 1 receives rank 0's input twice and reduces both into its output,
  // which it initialised in the step before.
  auto all = exchange();
  for (auto& s : all) s.steps.insert(s.steps.begin(), Step{}), s.total_steps = 3;
  all[1].steps[0].locals = {{LocalKind::copy, {kInput, 0, 8}, {kOutput, 0, 8}}};
  all[1].steps[1].locals.clear();
  all[1].steps[1].recvs = {{0, {kOutput, 0, 8}, RecvMode::reduce},
                           {0, {kOutput, 0, 8}, RecvMode::reduce}};
  all[1].steps[2].locals.clear();
  all[0].steps[1].sends.push_back({1, {kInput, 0, 8}});
  EXPECT_TRUE(validate(all).ok) << validate(all).message;
  // A reduce-receive reads its target, so that must hold data first.
  all[1].steps[0].locals.clear();
  expect_rejected(all, "step 1: rank 1: reduce-receive #0 from rank 0 reads output[0, 8), but "
                       "element 0 of output holds no data yet");
}

TEST(Validate, PeerOutOfRangeOrSelf) {
  auto all = exchange();
  all[0].steps[0].sends[0].peer = 2;
  expect_rejected(all, "step 0: rank 0: send #0 to rank 2 names peer 2, out of range [0, 2)");
  all = exchange();
  all[1].steps[0].recvs[0].peer = 1;
  expect_rejected(all, "step 0: rank 1: copy-receive #0 from rank 1 names itself as peer");
}

TEST(Validate, StepCountsDiffer) {
  auto all = exchange();
  all[1].steps.emplace_back();
  all[1].total_steps = 3;
  expect_rejected(all, "rank 1 has 3 steps, rank 0 has 2");
}

TEST(Validate, OutputNeverWritten) {
  auto all = exchange();
  all[1].steps[0].locals[0] = {LocalKind::copy, {kInput, 0, 5}, {kOutput, 0, 5}};
  all[1].steps[1].locals[0] = {LocalKind::reduce, {kScratch0, 0, 5}, {kOutput, 0, 5}};
  expect_rejected(all, "end: rank 1: output element 5 is never written");
}

TEST(Validate, LocalSizeMismatchAndPartialOverlap) {
  auto all = exchange();
  all[0].steps[1].locals[0].src.count = 4;
  expect_rejected(all, "step 1: rank 0: local reduce #0 from scratch0[0, 4) (4 elements) into "
                       "output[0, 8) (8 elements)");
  all = exchange();
  all[0].steps[1].locals.push_back({LocalKind::copy, {kOutput, 0, 4}, {kOutput, 2, 4}});
  expect_rejected(all, "step 1: rank 0: local copy #1 source output[0, 4) and target "
                       "output[2, 6) partially overlap");
}

TEST(Validate, ReductionInANonReducingCollective) {
  auto all = exchange();
  for (auto& s : all) s.coll = Collective::alltoall;  // output/input become 2*8
  expect_rejected(all, "reduces in alltoall, which has no reduction");
}

TEST(Validate, InconsistentSet) {
  auto all = exchange();
  all[1].count = 9;
  expect_rejected(all, "rank 1's schedule is for allreduce/handmade p=2 count=9");
  all = exchange();
  all.pop_back();
  expect_rejected(all, "1 schedules for p = 2");
  all = exchange();
  std::swap(all[0], all[1]);
  expect_rejected(all, "schedule #0 is rank 1's");
}

TEST(Validate, OrThrowNamesTheSchedule) {
  auto all = exchange();
  all[1].steps[0].recvs[0].dst.count = 7;
  try {
    validate_or_throw(all);
    FAIL() << "no exception";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("allreduce/handmade p=2 count=8 fp32 sum out-of-place: "
                                         "invalid schedule: step 0"),
              std::string::npos)
        << e.what();
  }
}

// The merged ranges the validator tracks definitions with (and the IPC
// executor later sends with): adjacent ranges join, half-open ends never touch.
TEST(IntervalSet, MergesAndAnswersCoverAndOverlap) {
  IntervalSet set;
  set.add(10, 20);
  set.add(20, 30);  // adjacent: one range [10, 30)
  set.add(40, 50);
  EXPECT_EQ(set.first_gap(10, 30), std::nullopt);
  EXPECT_EQ(set.first_gap(5, 30), std::optional<std::size_t>(5));
  EXPECT_EQ(set.first_gap(25, 45), std::optional<std::size_t>(30));
  EXPECT_TRUE(set.overlaps(29, 31));
  EXPECT_FALSE(set.overlaps(30, 40));  // between the two ranges
  EXPECT_FALSE(set.overlaps(0, 10));   // ends where the first begins
  EXPECT_TRUE(set.overlaps(0, 11));
  EXPECT_TRUE(set.overlaps(35, 60));
  EXPECT_FALSE(set.overlaps(50, 60));
  EXPECT_FALSE(set.overlaps(45, 45));  // empty
}

}  // namespace
}  // namespace cb
