// Everything `collbench fit` computes from a results file: per-configuration
// lines and knees, the transport-wide alpha-beta-gamma fit, predictions of
// every measured row, and predicted vs measured crossovers and best choices.
// Pure computation; outputs.hpp and report.hpp turn it into files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/global_fit.hpp"
#include "models/knees.hpp"
#include "models/line_fit.hpp"
#include "models/results_csv.hpp"

namespace cb::models {

struct AnalysisOptions {
  // Parameters from `collbench calibrate` (out-of-sample); they predict the
  // rows of their own transport only.
  std::optional<ModelParams> calibration;
  std::string calibration_transport = "mpi";
  std::string calibration_file;
  int config_resamples = 300;  // bootstrap resamples per configuration line
  int global_resamples = 200;  // bootstrap resamples of the global fit
  std::uint64_t seed = 20261121;
};

struct ConfigResult {
  ConfigKey key;
  bool baseline = false;                  // mpi / nccl: no closed-form cost
  std::vector<const Measurement*> points; // sorted by bytes
  LineFit line;
  Piecewise piecewise;
};

struct TransportFit {
  std::string transport;
  std::optional<GlobalFit> fit;  // nullopt when no usable schedule rows
  std::size_t rows_used = 0;
  // Reason -> number of rows of this transport left out of the global fit.
  std::map<std::string, std::size_t> excluded;
};

// Which parameters made a prediction: the transport's global fit, the
// calibration file, or the configuration's own line.
inline constexpr const char* kByGlobal = "global";
inline constexpr const char* kByCalibration = "calibration";
inline constexpr const char* kByConfig = "config";

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

struct PairCrossover {
  GroupKey group;
  std::string params;  // kByGlobal or kByCalibration
  std::string algo_a, algo_b;
  std::vector<double> predicted_B;  // crossing sizes within the measured range
  std::vector<double> measured_B;
  std::string predicted_faster_below, measured_faster_below;  // winner at the smallest size
};

// predicted_best lists every algorithm predicted within 1e-9 of the fastest,
// joined by '|' (ties: the model cannot choose between them), and
// predicted_best_measured_s is the best measured time among them.
struct BestAtSize {
  GroupKey group;
  std::string params;
  std::uint64_t bytes = 0;
  std::string predicted_best, measured_best;
  bool model_right() const;  // measured_best is one of predicted_best
  double predicted_best_measured_s = 0, measured_best_s = 0;
  double regret = 0;  // predicted_best_measured_s / measured_best_s - 1
};

struct Analysis {
  std::string source_file;
  std::size_t rows = 0;
  std::optional<ModelParams> calibration;
  std::string calibration_transport, calibration_file;
  std::vector<ConfigResult> configs;
  std::vector<TransportFit> transports;
  std::vector<Prediction> predictions;
  std::vector<PairCrossover> crossovers;
  std::vector<BestAtSize> best;
};

Analysis analyze(const ResultsFile& results, const AnalysisOptions& opt);

}  // namespace cb::models
