// latency-rounds.csv of `collbench fit --network`: at the smallest measured
// size and small p, each schedule's time in units of the expected α (the
// configured latency plus the stack's overhead) beside the rounds the model
// charges it, and which are off. Judged here so that scripts/testbed/report.py
// only shows the table and its sentence. Columns kind, ranks, rounds,
// collective, algorithm, bytes, median_alpha, fastest_alpha, off, off_factor,
// count:
//   kind=ranks   one per p in kLatencyRanks: the columns of the table.
//   kind=row     one per (collective, algorithm, p in kLatencyRanks) at its
//                smallest size with a schedule: rounds (the closed form's
//                latencies), median_alpha and fastest_alpha (the median and
//                fastest time over α; fastest empty without time_min_us),
//                off = 1 when rounds > 0 and median_alpha / rounds is at least
//                kLatencyOff or at most 1 / kLatencyOff; off_factor =
//                kLatencyOff.
//   kind=rounds  one per p and rounded round count > 0 of those rows:
//                median_alpha = their median, count = how many.
// Numbers with full precision; the ranks rows first, then the rows in
// (ranks, collective, algorithm) and (ranks, rounds) order.
#pragma once

#include <string>
#include <vector>

#include "models/link_limits.hpp"

namespace cb::models {

// The rank counts shown: the latency terms dominate there (little forwarding).
inline constexpr int kLatencyRanks[] = {2, 3};
// The factor by which a measured latency count differs from the model's
// rounds before the row is called off.
inline constexpr double kLatencyOff = 1.5;

// `rows` are link_rows() of a results file; the fastest times are their
// Measurement::time_min_s (the time_min_us column).
std::string latency_rounds_csv(const std::vector<LinkRow>& rows, const NetworkSetting& net);

}  // namespace cb::models
