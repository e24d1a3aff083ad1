// Receive-reduce fusion (algorithms/fuse.hpp) only fires when the
// staged message is never read again, copy-reduce fusion only on a copy and a
// reduce of one region in a row; the transport tests prove results stay
// bit-exact, these pin down when each may and may not fire.
#include <gtest/gtest.h>

#include "algorithms/fuse.hpp"

namespace cb {
namespace {

const BufferId kX = kScratch0;

// Step 0: receive 8 elements into scratch X, then reduce X into the output.
Schedule staged_reduce() {
  Schedule s;
  s.p = 2;
  s.count = 8;
  s.scratch_counts = {8};
  Step step;
  step.recvs.push_back({1, {kX, 0, 8}, RecvMode::copy});
  step.locals.push_back({LocalKind::copy, {kInput, 0, 8}, {kOutput, 0, 8}});
  step.locals.push_back({LocalKind::reduce, {kX, 0, 8}, {kOutput, 0, 8}});
  s.steps.push_back(step);
  return s;
}

TEST(Fuse, StagedReduceReadsTheSenderDirectly) {
  const Schedule s = staged_reduce();
  EXPECT_EQ(fusable_local_reduce(s, 0, 0), std::optional<std::size_t>(1));
}

TEST(Fuse, NotWhenTheStagedMessageIsReadLater) {
  Schedule s = staged_reduce();
  Step later;
  later.sends.push_back({1, {kX, 2, 3}});  // forwards part of X
  s.steps.push_back(later);
  EXPECT_EQ(fusable_local_reduce(s, 0, 0), std::nullopt);
}

TEST(Fuse, YesWhenOverwrittenBeforeTheLaterRead) {
  Schedule s = staged_reduce();
  Step later;
  later.recvs.push_back({1, {kX, 0, 8}, RecvMode::copy});
  later.locals.push_back({LocalKind::reduce, {kX, 0, 8}, {kOutput, 0, 8}});
  s.steps.push_back(later);
  EXPECT_EQ(fusable_local_reduce(s, 0, 0), std::optional<std::size_t>(1));
}

TEST(Fuse, NotIntoUserBuffersNorWhenAnotherLocalTouchesXFirst) {
  Schedule s = staged_reduce();
  s.steps[0].recvs[0].dst = {kOutput, 0, 8};  // user-visible: must really land
  s.steps[0].locals = {{LocalKind::reduce, {kOutput, 0, 8}, {kInput, 0, 8}}};
  EXPECT_EQ(fusable_local_reduce(s, 0, 0), std::nullopt);

  Schedule t = staged_reduce();
  t.steps[0].locals.insert(t.steps[0].locals.begin(),
                           {LocalKind::copy, {kX, 0, 4}, {kOutput, 0, 4}});
  EXPECT_EQ(fusable_local_reduce(t, 0, 0), std::nullopt);
}

TEST(Fuse, NotWhenTheReduceConsumesOnlyPartOfX) {
  Schedule s = staged_reduce();
  s.steps[0].locals[1].src = {kX, 0, 4};
  s.steps[0].locals[1].dst = {kOutput, 0, 4};
  EXPECT_EQ(fusable_local_reduce(s, 0, 0), std::nullopt);
}

// staged_reduce()'s locals: copy input into the output, then reduce X into it.
TEST(CopyThenReduce, ACopyFollowedByAReduceIntoTheSameRegionIsOnePass) {
  const Schedule s = staged_reduce();
  EXPECT_TRUE(copy_then_reduce(s.steps[0], 0));
  EXPECT_FALSE(copy_then_reduce(s.steps[0], 1));  // the reduce is last: no pair starts there
}

TEST(CopyThenReduce, NotOverOtherRegionsNorWhenTheReduceReadsWhatTheCopyWrote) {
  Schedule s = staged_reduce();
  s.steps[0].locals[1].dst = {kOutput, 0, 4};  // reduces only part of D
  s.steps[0].locals[1].src = {kX, 0, 4};
  EXPECT_FALSE(copy_then_reduce(s.steps[0], 0));

  Schedule t = staged_reduce();
  t.steps[0].locals[1].src = {kOutput, 0, 8};  // X is D itself: the copy changes it
  EXPECT_FALSE(copy_then_reduce(t.steps[0], 0));

  Schedule u = staged_reduce();
  std::swap(u.steps[0].locals[0], u.steps[0].locals[1]);  // reduce first, then copy
  EXPECT_FALSE(copy_then_reduce(u.steps[0], 0));

  Schedule v = staged_reduce();
  v.steps[0].locals.insert(v.steps[0].locals.begin() + 1,
                           {LocalKind::copy, {kInput, 0, 8}, {kScratch0, 0, 8}});
  EXPECT_FALSE(copy_then_reduce(v.steps[0], 0));  // not adjacent
}

}  // namespace
}  // namespace cb
