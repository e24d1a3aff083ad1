// repeat-agreement.csv (`collbench repeat-agreement RUN RUN [RUN...]`): how
// well one testbed run's measured crossovers predict another's, the ceiling
// that the measurement itself puts on the crossover target (targets.hpp,
// kTargetsLinkLimited.crossover_factor, 2x). Judged here so that
// scripts/testbed/repeat_agreement.py only formats the rows.
//
// Each RUN is a testbed study folder; the settings compared are the folders
// that every RUN has with a fit/crossovers.csv. A crossover is a pair row of
// crossovers.csv with a measured crossover, keyed by (collective, ranks,
// algo_a, algo_b). Of a run, per params level, the counted ones are those of
// the link-limited scope (cpu_limited 0, as `fit --network` marks them) with
// the fit's verdict; every one (params global: the measured crossovers are
// the same at every level) is what another run predicts with. Two sizes x, y
// agree within a factor f when max(x / y, y / x) <= f.
//
// Columns: kind, setting, run_a, run_b, params, collective, ranks, algo_a,
// algo_b, crossovers, other_run_within, model_within, both_within, apart,
// only_in_one, crossover_a_B, crossover_b_B, factor (on every row). Runs as
// given on the command line.
//   kind=agreement  per ordered pair of runs and params level present in
//                   run_a: run_a's counted crossovers (crossovers), those
//                   within factor of run_b's measured crossover of the same
//                   key (other_run_within), those the model puts within the
//                   factor (model_within: verdict within), and both.
//   kind=runs       per unordered pair (run_a before run_b on the command
//                   line): keys measured in both more than factor^2 apart
//                   (apart: no one size is within the factor of both) and
//                   keys measured to cross in only one of the two.
//   kind=apart      one row per such key: crossover_a_B, crossover_b_B.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "models/csv_text.hpp"

namespace cb::models {

// (collective, ranks, algo_a, algo_b).
using CrossoverKey = std::tuple<std::string, int, std::string, std::string>;

struct CountedCrossover {
  double measured_B = 0;
  bool model_within = false;  // the fit's verdict: within the factor
};

// One run's crossovers in one setting.
struct RunCrossovers {
  std::map<CrossoverKey, double> every;  // BYTES, params global
  // By params level (every level with a pair row), the link-limited ones.
  std::map<std::string, std::map<CrossoverKey, CountedCrossover>> counted;
};

// Reads crossovers.csv's pair rows; UsageError naming the file for a
// missing column or a malformed number.
RunCrossovers run_crossovers(const CsvTable& crossovers);

// Whether x and y (> 0) are within `factor` of each other.
bool within_factor(double x, double y, double factor);

// The CSV's rows (no header) for one setting of the runs named `runs`
// (parallel to `found`), in the order of the header comment: agreement rows
// per ordered pair, then per unordered pair its runs row and apart rows.
std::string repeat_agreement_rows(const std::string& setting, const std::vector<std::string>& runs,
                                  const std::vector<RunCrossovers>& found, double factor);

// The whole file for `runs` (study folders); UsageError when fewer than two
// runs are given, a run is not a folder, or no setting has
// fit/crossovers.csv in every run.
std::string repeat_agreement_csv(const std::vector<std::string>& runs);

inline constexpr const char* kRepeatAgreementHeader =
    "kind,setting,run_a,run_b,params,collective,ranks,algo_a,algo_b,crossovers,other_run_within,"
    "model_within,both_within,apart,only_in_one,crossover_a_B,crossover_b_B,factor\n";

}  // namespace cb::models
