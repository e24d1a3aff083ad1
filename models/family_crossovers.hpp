// Hierarchical against flat on a two-level layout: where does composing the
// node and network levels start (or stop) paying off, measured and
// predicted. On a two-level layout a user chooses a family first
// ("hierarchical or flat at my node count and size?", issue #29), so the
// crossover that matters is between the fastest algorithm of each family,
// whichever algorithms those are at each size.
#pragma once

#include <vector>

#include "models/analysis.hpp"

namespace cb::models {

// The family names in PairCrossover::algo_a and algo_b.
inline constexpr std::string_view kHierarchicalFamily = "hierarchical";
inline constexpr std::string_view kFlatFamily = "flat";

// Per (parameter set, group) on two levels (2 or more nodes of 2 or more
// ranks) with both families measured at 2 or more common sizes, from
// a.predictions (every parameter set but kByConfig):
//  - measured: at each size, the family's fastest row (median and its CI);
//    crossings by separated_crossings, the rule of every measured crossover;
//  - predicted: at each measured size, the family's fastest prediction;
//    crossings interpolated in log(size) between the measured sizes
//    (measured_crossings on the noiseless series; the families' members
//    change with size, so there is no single closed form to bisect);
//  - a measured crossing judged against kTargetsHierarchical.crossover_factor
//    (judge_crossover).
// algo_a is kHierarchicalFamily, algo_b kFlatFamily; cpu_limited is unset.
std::vector<PairCrossover> family_crossovers(const Analysis& a);

}  // namespace cb::models
