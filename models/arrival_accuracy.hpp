// How well the model predicts algorithms under process arrival patterns
// (docs/stragglers.md): measured rows of `collbench run --arrival`, each
// with the time after the last arrival the model predicts for it
// (`collbench arrival-check` prices them as `predict --arrival` does), graded
// by three figures:
//  - the error of the predicted time after the last arrival (median |err|,
//    at >= 64 KiB and below);
//  - the most tolerant pick per cell (one collective, rank count, size and
//    pattern): right when an algorithm predicted fastest is measured tied
//    with the fastest (crossover.hpp's rule: not significantly slower);
//  - skew crossovers: along the delay axis of one (collective, p, size,
//    pattern kind), the delays where the measured faster of two algorithms
//    flips (only where one is significantly faster on both sides), each
//    matched with the predicted crossing of the same pair and direction
//    nearest to it; within 2x when their ratio lies in [1/2, 2].
// Pure computation on its inputs: no pricing, no files.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "algorithms/collective.hpp"
#include "models/crossover.hpp"
#include "models/targets.hpp"

namespace cb::models {

// One measured row under a pattern with its prediction. Times in SECONDS.
struct ArrivalCase {
  std::string transport;
  Collective coll = Collective::allreduce;
  int ranks = 0;
  std::uint64_t bytes = 0;  // S, as the results CSV's bytes
  std::string arrival;      // the pattern as given ("one-late:200us")
  std::string kind;         // its kind ("one-late", "uniform", ...): the crossover axis groups by it
  double delay_s = 0;       // its largest delay: the crossover axis
  std::string algorithm;
  TimeCI measured;          // median time after the last arrival and its 95% CI
  double noskew_s = 0;      // the row's no-skew median (measured in the same run)
  double predicted_s = 0;   // predicted time after the last arrival
};

// (predicted - measured) / measured.
double arrival_rel_err(const ArrivalCase& c);

// One cell: every algorithm of one (transport, collective, p, size, pattern).
struct ArrivalPick {
  std::string transport;
  Collective coll = Collective::allreduce;
  int ranks = 0;
  std::uint64_t bytes = 0;
  std::string arrival;
  // '|'-joined: predicted within 1e-9 of the fastest; measured fastest and
  // every algorithm it is not significantly_faster than.
  std::string predicted_best, measured_best;
  bool right = false;  // the two sets share an algorithm (tie_sets_overlap)
  // Algorithms in the cell, and how many of them the measurement ties with
  // the fastest: a pick is only as telling as this set is small.
  std::size_t contenders = 0, measured_tied = 0;
  // The measured time of the first predicted-best algorithm over the measured fastest, - 1.
  double regret = 0;
};

// A measured skew crossover and the predicted crossing matched with it.
struct ArrivalCrossover {
  std::string transport;
  Collective coll = Collective::allreduce;
  int ranks = 0;
  std::uint64_t bytes = 0;
  std::string kind;
  std::string algo_a, algo_b;
  bool a_faster_after = false;      // a is faster at the larger delays
  double measured_delay_s = 0;      // interpolated in log(delay) on log(t_a / t_b)
  double measured_lo_s = 0, measured_hi_s = 0;  // the separated delays it lies between
  double predicted_delay_s = 0;     // NaN when the model has no crossing of that direction
  bool within_2x = false;           // predicted / measured within kArrivalCrossoverFactor
};

struct ArrivalSummary {
  std::string scope;  // "all" or a pattern kind
  std::size_t rows_large = 0, rows_small = 0;
  double median_err_large = 0, median_err_small = 0;  // median |rel err|; NaN without rows
  std::size_t cells = 0, picks_right = 0;
  // Mean over cells of measured_tied / contenders (NaN without cells).
  double mean_tied_fraction = 0;
  std::size_t crossovers = 0, crossovers_within_2x = 0;
  // Crossings of the predictions alone along the same axes (every pair, the
  // measured delays): where the model expects the ranking to flip, measured
  // separated or not.
  std::size_t predicted_crossovers = 0;
  double picks_right_fraction() const;       // NaN without cells
  double crossovers_within_fraction() const;  // NaN without crossovers
  // The targets (docs/stragglers.md); a figure without data is not met.
  bool err_met() const;        // median_err_large <= kArrivalErrTarget
  bool picks_met() const;      // picks_right_fraction() >= kArrivalPickTarget
  bool crossovers_met() const; // crossovers_within_fraction() >= kArrivalPickTarget
};

inline constexpr double kArrivalErrTarget = 0.15;    // median |err| at >= kArrivalLargeBytes
inline constexpr double kArrivalPickTarget = 0.90;   // fraction of cells (and of crossovers)
// The size (BYTES) from which an error counts as large: the fit's split
// (targets.hpp), as the testbed validation's targets are.
inline constexpr std::uint64_t kArrivalLargeBytes = static_cast<std::uint64_t>(kLargeBytes);
// A skew crossover is predicted right when predicted / measured delay lies in
// [1 / kArrivalCrossoverFactor, kArrivalCrossoverFactor].
inline constexpr double kArrivalCrossoverFactor = 2.0;

struct ArrivalAccuracy {
  std::vector<ArrivalPick> picks;
  std::vector<ArrivalCrossover> crossovers;
  // Per pattern kind, the predicted crossings (ArrivalSummary::predicted_crossovers).
  std::map<std::string, std::size_t> predicted_crossovers;
  std::vector<ArrivalSummary> summaries;  // "all" first, then each kind in name order
};

// Grades `cases` (any order). Each case needs measured.median > 0 and
// predicted_s > 0; a case without a CI (lo = hi = median) still counts.
ArrivalAccuracy grade_arrival(const std::vector<ArrivalCase>& cases,
                              double min_effect = kMinEffect);

// The CSV texts `collbench arrival-check` writes (harness/report/CSV.md,
// "Arrival check CSVs"): one row per case, per pick, per crossover, per summary.
std::string arrival_cases_csv(const std::vector<ArrivalCase>& cases);
std::string arrival_picks_csv(const std::vector<ArrivalPick>& picks);
std::string arrival_crossovers_csv(const std::vector<ArrivalCrossover>& crossovers);
std::string arrival_summary_csv(const std::vector<ArrivalSummary>& summaries);

}  // namespace cb::models
