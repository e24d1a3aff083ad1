// models/refine_sizes.hpp: the sizes the testbed study measures again around
// each measured crossover, from intervals found by the fit's own rule
// (separated_crossings) on series whose CIs separate where planted.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "algorithms/types.hpp"
#include "models/crossover.hpp"
#include "models/refine_sizes.hpp"

namespace cb::models {
namespace {

// The sweep's x4 grid with a size below it: 8 B, 16 B .. 4 MiB, 16 MiB.
std::vector<double> grid() {
  std::vector<double> out{8};
  for (int k = 0; k < 11; ++k) out.push_back(16.0 * (1u << (2 * k)));
  return out;
}

// The first measured crossing's interval of algorithms a and b at `sizes`,
// where a's time is b's times ratio_at(size), both with a +-1% CI (a ratio
// of 1 is a tie): what `collbench fit` writes as measured_crossover_lo_B/hi_B.
std::vector<CrossoverSpan> span_of(const std::string& coll, int p,
                                   const std::vector<double>& sizes,
                                   const std::function<double(double)>& ratio_at) {
  std::vector<TimeCI> a, b;
  for (double s : sizes) {
    const double tb = 100e-6 + s * 1e-9, ta = tb * ratio_at(s);
    a.push_back({ta, ta * 0.99, ta * 1.01});
    b.push_back({tb, tb * 0.99, tb * 1.01});
  }
  const std::vector<MeasuredCrossing> xs = separated_crossings(sizes, a, b);
  if (xs.empty()) return {};
  return {{{coll, p}, xs.front().lo_bytes, xs.front().hi_bytes}};
}

std::vector<CrossoverSpan> operator+(std::vector<CrossoverSpan> x,
                                     const std::vector<CrossoverSpan>& y) {
  x.insert(x.end(), y.begin(), y.end());
  return x;
}

TEST(RefineSizes, MidpointsInsideEachMeasuredInterval) {
  const std::vector<double> g = grid();
  // allreduce p = 4: a faster up to 4 KiB, b from 16 KiB: one gap, 8 KiB.
  // allgather p = 8: a tie at 16 KiB between 4 KiB and 64 KiB: 8 and 32 KiB.
  // reduce_scatter p = 6: a crossing between 1 and 4 MiB: 2 MiB.
  // alltoall p = 3: between 4 and 16 MiB, whose 8 MiB is above the cap.
  // reduce_scatter p = 2 never crosses.
  const std::vector<CrossoverSpan> spans =
      span_of("allreduce", 4, g, [](double s) { return s <= 4096 ? 0.9 : 1.1; }) +
      span_of("allgather", 8, g,
              [](double s) { return s <= 4096 ? 0.9 : s == 16384 ? 1.0 : 1.1; }) +
      span_of("reduce_scatter", 6, g, [](double s) { return s <= (1 << 20) ? 0.9 : 1.1; }) +
      span_of("alltoall", 3, g, [](double s) { return s <= (4 << 20) ? 0.9 : 1.1; }) +
      span_of("reduce_scatter", 2, g, [](double) { return 0.9; });
  ASSERT_EQ(spans.size(), 4u);
  std::map<CollRanks, std::vector<double>> sizes;
  for (const CrossoverSpan& s : spans) sizes[s.at] = g;
  EXPECT_EQ(refine_lines(refine_ranges(spans, sizes)),
            "allgather 8 8192 32768\n"
            "allreduce 4 8192 8192\n"
            "reduce_scatter 6 2097152 2097152\n");
  // A higher cap takes the 8 MiB midpoint too.
  const std::vector<RefineRange> all = refine_ranges(spans, sizes, 8u << 20);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[2].at, (CollRanks{"alltoall", 3}));  // after allgather, allreduce
  EXPECT_EQ(all[2].min_B(), 8u << 20);
  // The same crossover at two params levels asks for the same sizes once.
  EXPECT_EQ(refine_lines(refine_ranges(spans + spans, sizes)),
            refine_lines(refine_ranges(spans, sizes)));
}

TEST(RefineSizes, RefinedGapsAreNotRefinedAgain) {
  // After a refinement the sizes around the crossing are 2x apart.
  std::vector<double> g = grid();
  g.insert(g.begin() + 6, 8192);  // between 4 KiB and 16 KiB
  const std::vector<CrossoverSpan> spans =
      span_of("allreduce", 4, g, [](double s) { return s <= 4096 ? 0.9 : 1.1; });
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].lo_B, 4096);
  EXPECT_EQ(spans[0].hi_B, 8192);
  EXPECT_TRUE(refine_ranges(spans, {{{"allreduce", 4}, g}}).empty());
}

TEST(RefineSizes, ATieWithinTheMinimumEffectWidensTheInterval) {
  // At 16 KiB b is 3% faster with separate CIs: below the 5% minimum effect
  // the fit calls it a tie, so the interval runs from 4 KiB to 64 KiB and
  // both gaps in it are refined.
  const std::vector<CrossoverSpan> spans = span_of("allreduce", 4, grid(), [](double s) {
    return s <= 4096 ? 0.9 : s == 16384 ? 1.03 : 1.1;
  });
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(refine_lines(refine_ranges(spans, {{{"allreduce", 4}, grid()}})),
            "allreduce 4 8192 32768\n");
}

TEST(RefineSizes, NominalSizesAndMidpoints) {
  // p = 3 rounds 256 KiB down to whole elements per rank.
  EXPECT_EQ(nominal_size(262140), 262144u);
  EXPECT_EQ(nominal_size(16), 16u);
  // The geometric mean's exponent rounds half to even: 8 B and 64 B give 16 B.
  EXPECT_EQ(gap_midpoints({8, 64}, 8, 64, kRefineMaxBytes), (std::set<std::uint64_t>{16}));
  EXPECT_EQ(gap_midpoints({16, 128}, 16, 128, kRefineMaxBytes), (std::set<std::uint64_t>{64}));
  // Only sizes inside [lo, hi], in any order; a gap of exactly 2x is not refined.
  EXPECT_EQ(gap_midpoints({65536, 16, 4096, 1024, 2048}, 1024, 4096, kRefineMaxBytes),
            (std::set<std::uint64_t>{}));
  EXPECT_EQ(gap_midpoints({65536, 16, 4096, 1024}, 1024, 65536, kRefineMaxBytes),
            (std::set<std::uint64_t>{2048, 16384}));
  EXPECT_EQ(gap_midpoints({65536, 16, 4096, 1024}, 1024, 65536, 8192),
            (std::set<std::uint64_t>{2048}));
}

TEST(RefineSizes, ReadsTheFitsCsvsAndRefusesMalformedOnes) {
  const CsvTable crossovers(
      "kind,params,collective,ranks,algo_a,algo_b,measured_crossover_B,measured_crossover_lo_B,"
      "measured_crossover_hi_B\n"
      "pair,global,allreduce,4,ring,tree,8000,4096,16384\n"
      "pair,global,allreduce,8,ring,tree,,,\n"
      "best,global,allreduce,4,,,,,\n",
      "crossovers.csv");
  const std::vector<CrossoverSpan> spans = crossover_spans(crossovers);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].at, (CollRanks{"allreduce", 4}));
  EXPECT_EQ(spans[0].lo_B, 4096);
  EXPECT_EQ(spans[0].hi_B, 16384);
  const CsvTable sweep("collective,ranks,bytes,algorithm\nallreduce,4,16384,ring\n"
                       "allreduce,4,4096,ring\nallreduce,4,4096,tree\nallgather,4,64,ring\n",
                       "sweep.csv");
  const auto sizes = measured_sizes(sweep);
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes.at({"allreduce", 4}), (std::vector<double>{4096, 16384}));
  EXPECT_EQ(refine_lines(refine_ranges(spans, sizes)), "allreduce 4 8192 8192\n");
  const auto refused = [](const std::string& text, const std::string& says, bool sweep_file) {
    try {
      const CsvTable t(text, "bad.csv");
      if (sweep_file)
        measured_sizes(t);
      else
        crossover_spans(t);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("kind,collective,ranks,measured_crossover_B\npair,allreduce,4,8000\n",
          "bad.csv: malformed, no column 'measured_crossover_lo_B'", false);
  refused("kind,collective,ranks,measured_crossover_B,measured_crossover_lo_B,"
          "measured_crossover_hi_B\npair,allreduce,4,8000,4096,lots\n",
          "bad.csv:2", false);
  refused("collective,ranks,bytes\nallreduce,4.5,16\n", "column ranks holds '4.5'", true);
  refused("collective,ranks,bytes\nallreduce,4,-16\n", "column bytes holds '-16'", true);
  refused("collective,ranks\nallreduce,4\n", "no column 'bytes'", true);
}

}  // namespace
}  // namespace cb::models
