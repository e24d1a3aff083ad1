// `collbench recommend`'s computation: from measured results (and optionally
// calibrations), the winner per size of every (setting, transport,
// collective, datatype, op, placement, ranks), decided by winners.hpp's rule,
// plus the three files it writes (docs/recommend.md): recommendations.csv,
// winners.csv and the MPICH selection tree built from the same decisions.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "models/model_params.hpp"
#include "models/results_csv.hpp"
#include "models/winners.hpp"

namespace cb::models {

// One results file and the setting it was measured in ("" when the inputs
// need no such label; else e.g. the testbed's "2ms-200Mbit").
struct RecommendInput {
  std::string setting;
  ResultsFile results;
};

// A calibration that predicts the ranks not measured, for one transport and
// the inputs of one setting (all of the transport's when `setting` is empty).
struct RecommendModel {
  std::string file;
  std::string transport, setting;
  ModelParams params;
  // Its validated error, as the line names it ("median |err| 5.0% >= 64 KiB,
  // 4.9% below (fit/accuracy.csv)"), "" when no accuracy file was found.
  std::string validated_error;
};

struct RecommendOptions {
  double min_effect = kMinEffect;  // fraction: 0.05 = 5%
  // Ranks to predict with a model (those not measured). Empty: twice the
  // largest measured rank count of each collective.
  std::vector<int> predict_ranks;
};

struct LineKey {
  std::string setting, transport;
  Collective coll = Collective::allreduce;
  DataType dtype = DataType::fp32;
  std::string op;  // "" for collectives without one
  std::string placement;
  int ranks = 1;
  std::string arrival;  // the `--arrival` pattern of the rows, "" without one
  auto operator<=>(const LineKey&) const = default;
};

struct Recommendation {
  LineKey key;
  bool predicted = false;  // source: measured | predicted
  std::string model;       // for predicted lines: the model and its validated error
  std::vector<SizeWinner> winners;
  // Under a pattern: the most tolerant algorithm by size, by the median time
  // from the last arrival to the last completion (no CI is measured for it:
  // the minimum effect alone separates). Empty without a pattern.
  std::vector<SizeWinner> tolerant;
};

// Throws UsageError (one line) when a configuration has two or more
// algorithms but no size that two of them share, or when nothing at all
// compares two algorithms; calibrations must match an input's transport.
std::vector<Recommendation> recommend(const std::vector<RecommendInput>& inputs,
                                      const std::vector<RecommendModel>& models,
                                      const RecommendOptions& options);

// "mpi allreduce fp32 p=8: naive <= 16 KiB · ... " (setting first when it is
// set; op and placement only when not sum/out; "predicted" lines say so;
// "under PATTERN" for rows measured with --arrival, whose winners are by the
// step's time and which gain a second line naming the most tolerant).
std::string recommendation_line(const Recommendation& r, std::size_t max_columns);

// What `recommend` prints: `shared` ("mpi fp32" when every line has that
// transport and datatype, which the lines then leave out; else "") and one
// line per recommendation, at most max_columns each, where rank counts of
// one configuration with the very same answer share a line ("p=4,8").
struct AnswerLines {
  std::string shared;
  std::vector<std::string> lines;
};
AnswerLines answer_lines(const std::vector<Recommendation>& recs, std::size_t max_columns);

// recommendations.csv and winners.csv (docs/recommend.md, INTERFACES).
std::string recommendations_csv(const std::vector<Recommendation>& recs);
std::string winners_csv(const std::vector<Recommendation>& recs);

// The settings of transport mpi among `recs` (sorted; "" for unlabelled).
std::vector<std::string> mpi_settings(const std::vector<Recommendation>& recs);

// The MPICH selection tree (mpich_selection.hpp) from the transport-mpi lines
// of `setting` (fp32 preferred, out of place): at each measured comm size and
// grid size, the measured size nearest in log scale within the measured span;
// there, the fastest candidate MPICH can run wins unless the library's own
// `mpi` row is not significantly slower (then MPICH's default stays).
// Sizes below the smallest measured one S0 take S0's decision when the
// library's `mpi` row did not rise significantly from S0 to the next measured
// size (at least 2 S0): there no time can fall by more than the minimum
// effect as the message shrinks. Other sizes and comm sizes not measured keep
// MPICH's default.
// With `collbench_leaves` the tree is collbench's own (SelectionGrid): every
// registered algorithm competes (naive, ring ... that MPICH lacks), and
// wherever none is significantly faster than the library's `mpi` row, or no
// `mpi` row was measured, or nothing was measured, the leaf is `mpi`: the
// library's own collective (do no harm).
nlohmann::ordered_json recommended_selection(const nlohmann::ordered_json& default_tree,
                                             const std::vector<RecommendInput>& inputs,
                                             const std::string& setting, double min_effect,
                                             bool collbench_leaves = false);

}  // namespace cb::models
