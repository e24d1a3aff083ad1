// miss-classes.csv of `collbench fit --network`: why each measured crossover
// of the link-limited scope that the model does not put within its factor
// is missed, by rules read from the measurement, not from the miss. Judged
// here so that scripts/testbed/classify_crossovers.py and the testbed report
// only count and show the classes. Each miss gets the first class whose rule
// holds, in this order (class, cause):
//  i   interval  the predicted crossing lies inside the measured crossing's
//                interval (crossovers.csv's measured_crossover_lo_B/hi_B, both
//                ends counted): the measurement cannot place it more finely;
//  i   parallel  at every measured size adjacent to the crossing (one if the
//                crossing is a measured size) the model's ratio T_a / T_b lies
//                inside the measured ratio's interval [ci_lo_a / ci_hi_b,
//                ci_hi_a / ci_lo_b], ends counted: the model agrees with the
//                measurement there to its resolution, and the two curves are
//                so nearly parallel that this residual moves the crossing;
//  ii  cpu       p > cores, and at the measured size nearest the crossing (on
//                a log scale; the smaller of two as near) the CPU time the
//                model does not charge for the difference in rounds,
//                |rounds_a - rounds_b| x stack overhead x max(0, p / cores - 1),
//                is at least the model's gap |T_a - T_b| there;
//  iii incast    one side is kDirect (registry.hpp: p - 1 flows into each
//                rank's link in one round) and the model under-predicts it
//                more than the other side (the lower signed error), at
//                p >= kIncastMinRanks and a nearest size >= kIncastMinBytes;
//  iii latency count  a nearest size below kLatencyBoundBytes (a latency-bound
//                size: the rounds the model charges against the latencies
//                measured, latency_rounds.hpp);
//  iv  other     none of the above.
// T is the median time (measured) or the model's time at the crossover's
// level; an algorithm group ("butterfly=rhd") is read by its first member.
//
// Columns: params, transport, collective, datatype, op, placement, ranks,
// algo_a, algo_b, measured_crossover_B, predicted_crossover_B (empty: not
// predicted), measured_crossover_lo_B, measured_crossover_hi_B (empty: no
// interval), nearest_B, err_a, err_b (T_model / T_measured - 1 at nearest_B),
// ratio_ci_lo, ratio_ci_hi (the measured ratio's interval there),
// model_ratio (T_a / T_b, the model's), cpu_gap_s, model_gap_s (seconds),
// class, cause. One row per miss, in crossovers.csv's order (every level with
// pair crossovers), numbers with full precision.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/analysis.hpp"
#include "models/link_limits.hpp"
#include "models/targets.hpp"

namespace cb::models {

// Incast is named from this many ranks (two senders into one link) and from
// this size (BYTES: the flows are long enough for TCP's queue to fill).
inline constexpr int kIncastMinRanks = 3;
inline constexpr double kIncastMinBytes = 256 * 1024;
// Below this size (BYTES) a row is latency-bound: the size the targets split
// the errors at (targets.hpp).
inline constexpr double kLatencyBoundBytes = kLargeBytes;

// One algorithm at one measured size: the measured median and its 95% CI,
// and the model's time. Seconds.
struct SideAtSize {
  double median_s = 0, ci_lo_s = 0, ci_hi_s = 0, predicted_s = 0;
};

// What the rules read of one missed crossover.
struct MissCase {
  int ranks = 0;
  double cores = 2;             // the testbed's cores (NetworkSetting)
  double stack_overhead_s = 0;  // the delay-0 calibration's alpha
  std::optional<double> predicted_B;                    // the first predicted crossing
  std::optional<std::pair<double, double>> interval_B;  // the measured crossing's interval
  std::uint64_t nearest_B = 0;                          // the measured size nearest it
  SideAtSize a, b;                                      // at nearest_B
  double rounds_a = 0, rounds_b = 0;                    // latencies along the critical path
  bool direct_a = false, direct_b = false;              // AlgorithmEntry::direct
  // Both sides at each measured size adjacent to the crossing.
  std::vector<std::pair<SideAtSize, SideAtSize>> adjacent;
};

struct MissClass {
  std::string_view klass, cause;  // "i" "interval", ..., "iv" "other"
  double cpu_gap_s = 0, model_gap_s = 0;
};

MissClass classify_miss(const MissCase& c);

// miss-classes.csv's text: the misses of `a` (after grade_link_limited),
// their figures read from `results` (the rows a was analysed from) and
// `links` (link_rows of them) and priced against `net`.
std::string miss_classes_csv(const Analysis& a, const ResultsFile& results,
                             const std::vector<LinkRow>& links, const NetworkSetting& net);

}  // namespace cb::models
