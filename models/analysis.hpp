// Everything `collbench fit` computes from a results file: per-configuration
// lines and knees, the transport-wide alpha-beta-gamma fit, predictions of
// every measured row, and predicted vs measured crossovers and best choices.
// Pure computation; outputs.hpp and summary_csv.hpp turn it into CSVs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/crossover.hpp"
#include "models/global_fit.hpp"
#include "models/knees.hpp"
#include "models/line_fit.hpp"
#include "models/parallel.hpp"
#include "models/results_csv.hpp"
#include "models/targets.hpp"
#include "models/terms.hpp"

namespace cb::models {

// Parameters from `collbench calibrate` (out-of-sample); they predict the
// rows of their own transport only.
struct CalibrationInput {
  std::string transport = "mpi";
  std::string file;
  ModelParams params;
  ModelTerms terms;  // empty: the baseline only
};

struct AnalysisOptions {
  std::vector<CalibrationInput> calibrations;  // at most one per transport
  int config_resamples = 300;  // bootstrap resamples per configuration line
  int global_resamples = 200;  // bootstrap resamples of the global fit
  std::uint64_t seed = 20261121;
  // Bounds on the per-configuration work of a large file, in points fitted
  // (one point in one robust line fit). The study's files stay far below
  // them and get config_resamples and the exact knee search of knees.hpp
  // (up to 32 sizes); 10^6 rows in 40,000 configurations of 25 sizes would
  // need 3*10^8 and 10^8. Above a bound every configuration gets the same
  // smaller share: proportionally fewer bootstrap resamples (at least
  // min_config_resamples), and knee searches on fewer groups of sizes (at
  // least 8; the work grows as the cube of the groups).
  double bootstrap_budget_points = 3e7;
  double knee_budget_points = 1e7;
  int min_config_resamples = 30;
  // Threads fitting configurations at once (the results do not depend on it).
  unsigned threads = hardware_threads();
};

struct ConfigResult {
  ConfigKey key;
  bool baseline = false;                  // mpi / nccl: no closed-form cost
  std::vector<const Measurement*> points; // sorted by bytes
  LineFit line;
  Piecewise piecewise;
  // Term `probe`: the median of its rows' mode probes, each part on its own,
  // with which every row of the configuration is priced (the probe is
  // taken before each row; the large one spreads ~2x between the rows of
  // one configuration, models/README.md); unmeasured when no row has one.
  ModeProbe probe;
};

struct TransportFit {
  std::string transport;
  std::optional<GlobalFit> fit;  // nullopt when no usable schedule rows
  std::size_t rows_used = 0;
  // Reason -> number of rows of this transport left out of the global fit.
  std::map<std::string, std::size_t> excluded;
  // A caveat about the rows the global fit did use (fit_rows.hpp), or "".
  std::string note;
};

// Which parameters made a prediction: the transport's global fit, the
// calibration file (the alpha-beta-gamma baseline), the calibration with
// terms (kByCalibration + "+" + the terms' names, e.g.
// "calibration+range+copy"; see terms.hpp), or the configuration's own line.
inline constexpr const char* kByGlobal = "global";
inline constexpr const char* kByCalibration = "calibration";
inline constexpr const char* kByConfig = "config";
// "calibration" for no terms, else "calibration+<terms>" (term_set_text).
std::string calibration_label(TermSet terms);

struct Prediction {
  const Measurement* row = nullptr;
  std::string params;  // kByGlobal, kByCalibration or kByConfig
  double predicted_s = 0;
  double rel_err = 0;  // (predicted - measured) / measured
  double lower_bound_s = std::numeric_limits<double>::quiet_NaN();  // same params
};

// Rows measured alike except for the algorithm and the size.
struct GroupKey {
  std::string transport;
  Collective coll = Collective::allreduce;
  DataType dtype = DataType::fp32;
  std::string op, placement;
  int ranks = 1;
  auto operator<=>(const GroupKey&) const = default;
};
std::string describe(const GroupKey& g);
GroupKey group_of(const Measurement& m);

// A row's median with the 95% CI of it (seconds); a file without CI columns
// gives the median alone (no crossover can then be shown to be separated).
TimeCI ci_of(const Measurement& m);

// Algorithms whose schedules exchange the same messages at the group's p
// (same_work in schedule_model.hpp, at the smallest and largest measured
// count) form one crossover group, written "a=b" and never paired.
struct PairCrossover {
  GroupKey group;
  std::string params;  // kByGlobal, kByCalibration or a calibration label with terms
  std::string algo_a, algo_b;  // crossover groups ("butterfly=rhd")
  // Crossing sizes within the measured range, rounded to 3 significant digits.
  std::vector<double> predicted_B;
  // Only where one is significantly_faster on both sides (separated_crossings).
  std::vector<double> measured_B;
  // Of each measured crossing: the sizes (bytes) it lies between, the last
  // where the old winner was significantly faster and the first where the new one is.
  std::vector<std::pair<double, double>> measured_interval_B;
  // The winner below the first crossover (at the smallest size when there is
  // none); measured: "tie" when there is none and the CIs overlap there.
  std::string predicted_faster_below, measured_faster_below;
  // Scope link-limited (link_grades.hpp, `fit --network` only; otherwise
  // unset): whether the first measured crossing lies next to a CPU-limited
  // row, and, for a measured crossing, how the prediction stands against it.
  std::optional<bool> cpu_limited;
  std::string verdict;           // within, below, above (the factor off) or none
  bool within_interval = false;  // within the factor or inside measured_interval_B
};

// Sets c.verdict and c.within_interval (c has a measured crossing): the first
// predicted crossing "within" `factor` of the first measured one in size,
// else "below" or "above" it, or "none"; within_interval also counts a
// prediction inside the measured crossing's interval.
void judge_crossover(PairCrossover& c, double factor);

// Sets c's measured side from the medians and CIs of c.algo_a (a) and
// c.algo_b (b) at `bytes` (ascending, 2 or more): measured_B and
// measured_interval_B from separated_crossings, and measured_faster_below,
// the side below the first crossing, or at the smallest size where there is
// none ("tie" where the CIs overlap there).
void set_measured_crossings(PairCrossover& c, const std::vector<double>& bytes,
                            const std::vector<TimeCI>& a, const std::vector<TimeCI>& b);

// Tie-aware best choice at one size. predicted_best lists every algorithm
// predicted within 1e-9 of the fastest (the model cannot choose between
// them); measured_best the fastest and every algorithm it is not
// significantly_faster than (crossover.hpp: CIs separate and the margin
// exceeds the minimum effect; the measurement cannot choose between them).
// Both joined by '|'.
struct BestAtSize {
  GroupKey group;
  std::string params;
  std::uint64_t bytes = 0;
  std::string predicted_best, measured_best;
  bool model_right() const;  // the two sets share an algorithm
  double predicted_best_measured_s = 0, measured_best_s = 0;
  double regret = 0;  // predicted_best_measured_s / measured_best_s - 1
  // Scope link-limited (`fit --network` only): whether an algorithm measured
  // at this size is CPU-limited, which leaves the size out of that scope.
  std::optional<bool> cpu_limited;
};

// Whether the '|'-separated sets share a member ("butterfly|naive" and
// "naive" do): the one rule for "the model picks the best".
bool tie_sets_overlap(std::string_view a, std::string_view b);

// The accuracy and choice figures of one parameter set over one transport's
// rows, against the targets of its scope (targets.hpp).
struct Grade {
  std::string params, transport;
  const Targets* targets = &kTargetsAllRows;  // the scope: which rows, judged against what
  std::size_t rows_large = 0, rows_small = 0, rows_all = 0;
  // median |rel_err| at >= kLargeBytes, below it, and over every size
  double median_large = 0, median_small = 0, median_all = 0;
  // The median of the signed rel_err at >= kLargeBytes (NaN: no such row):
  // which way the large rows lean, beside median_large.
  double median_signed_large = std::numeric_limits<double>::quiet_NaN();
  std::string worst_collective;               // highest median |rel_err| >= 64 KiB
  double worst_collective_median = 0;
  std::size_t picks_right = 0, picks = 0;     // BestAtSize::model_right over sizes
  std::size_t picks_left_out = 0;             // sizes not in the scope
  double median_regret = 0, worst_regret = 0;
  // Measured crossovers in the scope (a scope without a crossover target: 0),
  // how many are predicted within targets->crossover_factor, and how many
  // within it or inside the measured crossing's interval (not a target).
  std::size_t crossovers = 0, crossovers_within_factor = 0, crossovers_within_interval = 0;
  // Whether params priced with per-rank clocks (term flight): the reports
  // show the richest level with and without them.
  bool per_rank_clocks = false;
};

struct Analysis {
  std::string source_file;
  std::size_t rows = 0;
  // What the work bounds of AnalysisOptions left each configuration line:
  // resamples of its bootstrap and the most sizes of its exact knee search.
  int config_resamples = 0;
  std::size_t knee_exact_points = 0;
  std::vector<CalibrationInput> calibrations;
  std::vector<ConfigResult> configs;
  std::vector<TransportFit> transports;
  std::vector<Prediction> predictions;
  std::vector<PairCrossover> crossovers;
  // Hierarchical against flat on two levels (family_crossovers.hpp).
  std::vector<PairCrossover> family_crossovers;
  std::vector<BestAtSize> best;
  std::vector<Grade> grades;  // global and every calibration level, per transport
  // The terms each calibration level's label (calibration_label) prices with.
  std::map<std::string, TermSet> level_terms;
};

// The grades of a.predictions and a.best (what analyze() stores in
// a.grades): every count of "the model picks the best" goes through
// BestAtSize::model_right.
std::vector<Grade> grades_of(const Analysis& a);

// Relative errors of one grade's rows, split at kLargeBytes (bytes: the row's S)
// as every two-level grade splits them: |err| large and small, all, the signed
// large ones, and the large ones per collective.
struct GradeErrors {
  std::vector<double> large, small, all, signed_large;
  std::map<Collective, std::vector<double>> coll;
  void add(double rel_err, double bytes, Collective collective);
  // Counts, medians (NaN where empty) and the worst collective into g; no picks,
  // so median_regret is NaN. g's other fields are left as they are.
  void fill(Grade& g) const;
};

// On two levels as the family grades count a row: 2 or more nodes of 2 or more ranks.
bool on_two_levels(const Scenario& s);

// The error grades of the rows on two levels (Scenario: 2 or more nodes of
// 2 or more ranks), one per (params, transport, family): scope
// "hierarchical" for composed algorithms (AlgorithmEntry::composition),
// "flat" for the others (targets.hpp); rows, medians and the worst
// collective as in grades_of, no picks (those are judged over every
// algorithm at a size). Empty when no row is on two levels; analyze()
// appends them to a.grades.
std::vector<Grade> family_grades(const Analysis& a);

// The CalibrationInput of `transport`, or nullptr.
const CalibrationInput* calibration_for(const Analysis& a, const std::string& transport);

Analysis analyze(const ResultsFile& results, const AnalysisOptions& opt);

}  // namespace cb::models
