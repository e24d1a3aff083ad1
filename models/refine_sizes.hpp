// The sizes at which the testbed study measures again so that each measured
// crossover is placed more finely (`collbench refine-sizes`, called by
// scripts/testbed/study.sh between its grid pass and its refinement pass).
//
// The sweep's grid steps by 4x, the same factor as the 2x crossover target it
// is judged by, so a crossover interpolated on it is only known to lie
// between two sizes 4x apart. For every measured crossover of a fit
// (crossovers.csv, kind pair), the fit's own interval is taken: the sizes
// between which neither algorithm is significantly_faster (crossover.hpp,
// separated_crossings; the measured_crossover_lo_B and _hi_B columns), so the
// rule that calls a crossover measured is the rule that bounds it. Inside
// that interval, every gap between consecutive measured sizes of the same
// (collective, ranks) wider than 2x gets its power-of-two midpoint, up to a
// cap. One range per (collective, ranks): the smallest and largest midpoint,
// which `collbench run -b MIN -e MAX -f 4` measures since the sweep's grid is
// 16 B x 4^k and its midpoints are the odd powers of two.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/csv_text.hpp"

namespace cb::models {

// The largest midpoint measured by default (BYTES): at 8 MiB one sample of
// every algorithm costs minutes on the testbed's links.
inline constexpr std::uint64_t kRefineMaxBytes = 2u << 20;

// (collective as the CSVs spell it, ranks).
using CollRanks = std::pair<std::string, int>;

// One measured crossover's interval (BYTES, both ends measured sizes).
struct CrossoverSpan {
  CollRanks at;
  double lo_B = 0, hi_B = 0;
};

// What the refinement pass measures for one (collective, ranks).
struct RefineRange {
  CollRanks at;
  std::set<std::uint64_t> midpoints;  // BYTES, ascending, not empty
  std::uint64_t min_B() const { return *midpoints.begin(); }
  std::uint64_t max_B() const { return *midpoints.rbegin(); }
};

// The power of two a measured size stands for: at p = 3 and 6 a size is
// rounded down to whole elements per rank (262140 for 256 KiB).
std::uint64_t nominal_size(double bytes);

// The power-of-two midpoints (the geometric mean rounded to a power of two,
// halves to even) of the gaps wider than 2x between consecutive nominal
// sizes among `sizes` (BYTES, any order) that lie in [lo_B, hi_B], those
// <= max_B only.
std::set<std::uint64_t> gap_midpoints(const std::vector<double>& sizes, double lo_B, double hi_B,
                                      std::uint64_t max_B);

// The spans of crossovers.csv's pair rows that have a measured crossover and
// its interval (every params level: the measured crossovers are the same at
// each, so repeats collapse later). UsageError naming the file and column
// for a missing column or a malformed number.
std::vector<CrossoverSpan> crossover_spans(const CsvTable& crossovers);

// The distinct sizes (BYTES) of a results CSV's rows per (collective,
// ranks). UsageError for a missing column or a malformed number.
std::map<CollRanks, std::vector<double>> measured_sizes(const CsvTable& sweep);

// One range per (collective, ranks) with at least one midpoint, in the order
// of (collective, ranks).
std::vector<RefineRange> refine_ranges(const std::vector<CrossoverSpan>& spans,
                                       const std::map<CollRanks, std::vector<double>>& sizes,
                                       std::uint64_t max_B = kRefineMaxBytes);

// The lines study.sh reads: `COLLECTIVE RANKS MIN MAX\n` per range.
std::string refine_lines(const std::vector<RefineRange>& ranges);

}  // namespace cb::models
