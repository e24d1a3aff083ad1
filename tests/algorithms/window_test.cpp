// Windowed builds (ScheduleBuilder's [begin, end)): every registered
// algorithm's window equals the same steps of the whole schedule, and
// for_steps skips the steps outside the window without running their bodies,
// so a window deep into a long schedule costs no replay from step 0.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "algorithms/registry.hpp"

namespace cb {
namespace {

bool same_ops(const Step& a, const Step& b) {
  if (a.sends.size() != b.sends.size() || a.recvs.size() != b.recvs.size() ||
      a.locals.size() != b.locals.size())
    return false;
  for (std::size_t i = 0; i < a.sends.size(); ++i)
    if (a.sends[i].peer != b.sends[i].peer || !(a.sends[i].src == b.sends[i].src)) return false;
  for (std::size_t i = 0; i < a.recvs.size(); ++i)
    if (a.recvs[i].peer != b.recvs[i].peer || !(a.recvs[i].dst == b.recvs[i].dst) ||
        a.recvs[i].mode != b.recvs[i].mode)
      return false;
  for (std::size_t i = 0; i < a.locals.size(); ++i)
    if (a.locals[i].kind != b.locals[i].kind || !(a.locals[i].src == b.locals[i].src) ||
        !(a.locals[i].dst == b.locals[i].dst))
      return false;
  return true;
}

TEST(WindowedBuild, EveryWindowEqualsTheSameStepsOfTheWholeSchedule) {
  for (const AlgorithmEntry* e : all_algorithms()) {
    for (int p : {2, 3, 5, 8, 13}) {
      for (std::size_t segment : {std::size_t{0}, std::size_t{8}}) {
        for (bool in_place : {false, true}) {
          CollParams params;
          params.coll = e->coll;
          params.p = p;
          params.count = 41;
          params.in_place = in_place;
          params.segment_bytes = segment;
          for (int r = 0; r < p; ++r) {
            params.rank = r;
            const Schedule whole = make_schedule(*e, params);
            const std::uint64_t total = whole.total_steps;
            for (std::uint64_t width : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{7}}) {
              for (std::uint64_t begin = 0; begin < total + 2; begin += width) {
                const Schedule w = make_schedule(*e, params, begin, begin + width);
                const std::string where =
                    fmt::format("{}/{} p={} rank={} segment={} in_place={} window [{}, {})",
                                to_string(e->coll), e->name, p, r, segment, in_place, begin,
                                begin + width);
                ASSERT_EQ(w.total_steps, total) << where;
                ASSERT_EQ(w.first_step, begin) << where;
                const std::uint64_t expect =
                    begin >= total ? 0 : std::min(width, total - begin);
                ASSERT_EQ(w.steps.size(), expect) << where;
                for (std::uint64_t s = 0; s < w.steps.size(); ++s)
                  ASSERT_TRUE(same_ops(w.steps[s], whole.steps[begin + s]))
                      << where << " step " << begin + s;
                ASSERT_EQ(w.scratch_counts, whole.scratch_counts) << where;
              }
            }
          }
        }
      }
    }
  }
}

TEST(WindowedBuild, ForStepsRunsOnlyTheBodiesInsideTheWindow) {
  CollParams params;
  params.p = 2;
  std::uint64_t calls = 0;
  ScheduleBuilder b(params, "test", 1'000'003, 1'000'010);
  b.step();                                                        // step 0
  b.for_steps(2'000'000, [&](std::uint64_t k) { calls += k > 0; });  // steps 1 .. 2'000'000
  b.step();                                                        // step 2'000'001
  const Schedule s = std::move(b).finish();
  EXPECT_EQ(calls, 7u);  // steps 1'000'003 .. 1'000'009 only
  EXPECT_EQ(s.total_steps, 2'000'002u);
  EXPECT_EQ(s.steps.size(), 7u);

  ScheduleBuilder tail(params, "test", 5, 6);
  calls = 0;
  tail.for_steps(3, [&](std::uint64_t) { ++calls; });  // steps 0..2: before the window
  tail.for_steps(4, [&](std::uint64_t k) { calls += 10 * (k + 1); });  // steps 3..6: k = 2 is step 5
  EXPECT_EQ(calls, 30u);
  EXPECT_EQ(std::move(tail).finish().total_steps, 7u);
}

}  // namespace
}  // namespace cb
