// The one measured-winner rule (crossover.hpp significantly_faster,
// winners.hpp): two identical schedules or a noisy sample never make a
// crossover; a real separation beyond the minimum effect makes exactly one,
// at the right size; and the winner line, the ranges and the changes agree.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/crossover.hpp"
#include "models/winners.hpp"

namespace cb::models {
namespace {

const std::vector<double> kBytes = {8, 64, 512, 4096, 32768, 262144};

// One algorithm's times at kBytes with a CI of +-rel around each median.
std::vector<TimeCI> series(const std::vector<double>& medians, double rel) {
  std::vector<TimeCI> out;
  for (double m : medians) out.push_back({m, m * (1 - rel), m * (1 + rel)});
  return out;
}

std::vector<SizeContenders> table(const std::vector<std::pair<std::string, std::vector<TimeCI>>>& algos) {
  std::vector<SizeContenders> out;
  for (std::size_t i = 0; i < kBytes.size(); ++i) {
    SizeContenders s{static_cast<std::uint64_t>(kBytes[i]), {}};
    for (const auto& [name, t] : algos) s.contenders.push_back({name, t[i]});
    out.push_back(std::move(s));
  }
  return out;
}

TEST(SignificantlyFaster, NeedsSeparatedIntervalsAndTheMinimumEffect) {
  EXPECT_TRUE(significantly_faster({1.0, 0.99, 1.01}, {1.2, 1.19, 1.21}));
  EXPECT_FALSE(significantly_faster({1.2, 1.19, 1.21}, {1.0, 0.99, 1.01}));
  // Separated but 3% apart: below the default 5% minimum effect.
  EXPECT_FALSE(significantly_faster({1.0, 0.999, 1.001}, {1.03, 1.029, 1.031}));
  EXPECT_TRUE(significantly_faster({1.0, 0.999, 1.001}, {1.03, 1.029, 1.031}, 0.02));
  // 50% apart but the intervals overlap.
  EXPECT_FALSE(significantly_faster({1.0, 0.5, 1.6}, {1.5, 1.4, 1.6}));
}

// The same schedule twice (or the same data under two names): the medians
// wobble around each other, and nothing may be called a crossover.
TEST(OneRule, IdenticalSchedulesMakeNoCrossover) {
  const std::vector<double> a = {10, 20, 40, 80, 160, 320};
  const std::vector<double> b = {10.1, 19.9, 40.2, 79.8, 160.3, 319.5};
  EXPECT_TRUE(separated_crossings(kBytes, series(a, 0.001), series(b, 0.001)).empty());
  EXPECT_TRUE(separated_crossings(kBytes, series(a, 0.02), series(a, 0.02)).empty());
  const auto w = decide_winners(table({{"ring", series(a, 0.001)}, {"rhd", series(b, 0.001)}}));
  EXPECT_TRUE(winner_changes(w).empty());
  for (const SizeWinner& s : w) EXPECT_EQ(s.tied_with.size(), 1u) << s.bytes;
}

// Medians that cross back and forth by 20-40%, with CIs so wide they
// overlap at every size: noise, no crossover, one winner throughout.
TEST(OneRule, NoisySampleWithOverlappingIntervalsMakesNoCrossover) {
  const std::vector<double> a = {10, 26, 40, 110, 160, 420};
  const std::vector<double> b = {13, 20, 52, 80, 210, 320};
  EXPECT_TRUE(separated_crossings(kBytes, series(a, 0.5), series(b, 0.5)).empty());
  const auto w = decide_winners(table({{"naive", series(a, 0.5)}, {"ring", series(b, 0.5)}}));
  EXPECT_TRUE(winner_changes(w).empty());
  ASSERT_EQ(winner_ranges(w).size(), 1u);
  EXPECT_EQ(w.front().algorithm, "naive");
  // The raw medians would have flipped at every size.
  EXPECT_EQ(measured_crossings(kBytes, a, b).size(), 5u);
}

// naive 2x faster up to 512 B, ring 2x faster from 4 KiB: one crossover,
// between 512 B and 4 KiB, where the log ratio changes sign.
TEST(OneRule, RealSeparationMakesOneCrossoverAtTheRightSize) {
  const std::vector<double> naive = {10, 12, 20, 100, 800, 6400};
  const std::vector<double> ring = {20, 24, 40, 50, 400, 3200};
  const auto x = separated_crossings(kBytes, series(naive, 0.02), series(ring, 0.02));
  ASSERT_EQ(x.size(), 1u);
  EXPECT_FALSE(x[0].a_faster_after);
  EXPECT_EQ(x[0].lo_bytes, 512);
  EXPECT_EQ(x[0].hi_bytes, 4096);
  // log ratio ln(20/40) at 512 B, ln(100/50) at 4 KiB: halfway in log size.
  EXPECT_NEAR(x[0].bytes, std::sqrt(512.0 * 4096.0), 1.0);

  const auto w = decide_winners(table({{"naive", series(naive, 0.02)}, {"ring", series(ring, 0.02)}}));
  const auto changes = winner_changes(w);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].from, "naive");
  EXPECT_EQ(changes[0].to, "ring");
  EXPECT_EQ(changes[0].last_old_bytes, 512u);
  EXPECT_EQ(changes[0].first_new_bytes, 4096u);
  EXPECT_EQ(winners_text(w), "naive <= 512 B · ring >= 4 KiB");
  const auto ranges = winner_ranges(w);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_NEAR(ranges[0].margin, 1.0, 1e-12);  // ring takes twice as long below 4 KiB
}

// The holder keeps its range through a size where a rival is faster only
// within the noise, and that rival is named as tied there.
TEST(OneRule, HolderKeepsTheRangeThroughTies) {
  const std::vector<double> a = {10, 20, 40, 80, 160, 320};
  const std::vector<double> b = {15, 30, 39, 120, 240, 480};
  const auto w = decide_winners(table({{"naive", series(a, 0.02)}, {"ring", series(b, 0.02)}}));
  EXPECT_TRUE(winner_changes(w).empty());
  EXPECT_EQ(w[2].algorithm, "naive");
  EXPECT_EQ(w[2].tied_with, std::vector<std::string>{"ring"});
  EXPECT_EQ(winners_text(w), "naive 8 B-256 KiB (ring tied 512 B)");
  EXPECT_EQ(winner_ranges(w).size(), 3u);  // the tie set changes at 512 B
}

TEST(OneRule, LibrarySpeedupIsTheSmallestOverTheRange) {
  const std::vector<double> a = {10, 20, 40, 80, 160, 320};
  const std::vector<double> mpi = {30, 50, 80, 120, 200, 400};
  const auto w = decide_winners(table({{"naive", series(a, 0.01)}, {"mpi", series(mpi, 0.01)}}));
  const auto ranges = winner_ranges(w);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_DOUBLE_EQ(ranges[0].speedup_vs_library, 1.25);
  EXPECT_DOUBLE_EQ(ranges[0].margin, 0.25);
}

TEST(OneRule, LongLinesDropTheTiesThenCut) {
  const std::vector<double> a = {10, 20, 40, 80, 160, 320};
  const std::vector<double> b = {10, 20, 40.1, 80, 160, 320};
  const auto w = decide_winners(table({{"naive", series(a, 0.01)}, {"ring", series(b, 0.01)}}));
  EXPECT_EQ(winners_text(w), "naive 8 B-256 KiB (ring tied)");
  EXPECT_EQ(winners_text(w, 28), "naive 8 B-256 KiB (+ties)");
  EXPECT_EQ(winners_text(w, 20), "naive 8 B-256 KiB");
  EXPECT_EQ(winners_text(w, 12), "naive 8 B...");
  EXPECT_LE(text_columns(winners_text(w, 12)), 12u);
  const std::vector<double> c = {40, 80, 40.1, 320, 640, 1280};
  const auto three = decide_winners(table({{"naive", series(a, 0.01)},
                                           {"ring", series(b, 0.01)},
                                           {"rhd", series(c, 0.01)}}));
  EXPECT_EQ(winners_text(three), "naive 8 B-256 KiB (ring tied; rhd tied 512 B)");
  EXPECT_EQ(winners_text(three, 40), "naive 8 B-256 KiB (tied: ring, rhd)");
}

}  // namespace
}  // namespace cb::models
