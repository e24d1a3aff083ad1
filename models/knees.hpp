// Protocol knees: where a transport switches protocol (eager -> rendezvous,
// cache -> memory) the time-vs-size line changes slope or jumps. As Netgauge
// does, the sweep is fitted piecewise and a new segment is accepted only when
// it cuts the misfit sharply.
//
// Method: for K = 1, 2, ... segments the optimal breakpoints are found by
// dynamic programming over the sorted sizes (every segment >= min_points
// points, each fitted with the robust relative line of robust_fit.hpp; a
// segment's misfit is the sum of its squared relative residuals, each capped
// at outlier_cap^2 so a single wild point neither makes nor hides a knee). K+1 segments are kept over K only while the K-segment fit is worse
// than the noise floor and the extra segment divides the residual sum of
// squares by at least `improvement` (i.e. the K-segment residual is at least
// double the (K+1)-segment one).
//
// That search fits O(m^2) segments of O(m) points each, so it runs only up to
// `max_exact_points` points (a sweep by factors of 2 from 8 B to 16 GiB has 32 sizes).
// A longer sweep (linear steps, `-i`) is first cut into at most
// max_exact_points groups of sizes, equally spaced in log(1 + bytes) (equal
// sizes never split), each represented by its median size and median time;
// the search runs on those points, and each segment it picks is refitted on
// all of its points. The work is then O(m) plus a constant, and knees are
// located to within one group: a factor (largest/smallest)^(1/max_exact_points)
// in size, about 1.5 for 8 B..1 MiB, as on a sweep by that factor.
#pragma once

#include <cstddef>
#include <vector>

namespace cb::models {

struct KneeOptions {
  std::size_t min_points = 3;   // per segment
  double improvement = 4.0;     // SSE ratio needed to add a segment (RMS halves)
  double noise_floor = 0.03;    // relative RMS below which no segment is added
  std::size_t max_segments = 4;
  double outlier_cap = 0.25;    // relative residual beyond which a point counts as an outlier
  std::size_t max_exact_points = 32;  // above this, search on group medians (see above)
  // Try K+2 segments when K+1 fails the test (both kept only if K+2 passes
  // it against K): a gradual bend, such as cache to memory over 4-16 MiB,
  // is fitted well only by two more segments, and the best K+1 then puts
  // its one knee where it explains little (fit_ranges, terms `range`, `concurrency`, `staged`).
  bool look_past_one = false;
};

struct Segment {
  std::size_t first = 0, last = 0;  // point indices (sorted order), inclusive
  double a_s = 0;                   // intercept, seconds
  double b_s_per_B = 0;             // slope, seconds per byte
};

struct Piecewise {
  std::vector<Segment> segments;
  // Knee sizes: the first measured size (bytes) of each segment after the first.
  std::vector<double> knees_B;
  double rms_rel = 0;  // RMS relative residual (capped) of the chosen piecewise fit
  // Points passed to segment fits in all: the cost measure tests bound (O(m)
  // for large m) instead of timing it.
  std::size_t work_points = 0;
};

// bytes sorted ascending (ties allowed: they are never split), seconds > 0.
Piecewise detect_knees(const std::vector<double>& bytes, const std::vector<double>& seconds,
                       const KneeOptions& opt = {});

}  // namespace cb::models
