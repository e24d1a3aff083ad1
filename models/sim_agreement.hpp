// The simulator against the measurement on two levels. Issue #29 asks that
// "the simulator calibrated on the same testbed reproduces the measured times
// within 10% at the measured layouts before it extrapolates": every measured
// schedule row of a two-level run is priced on the simulator with the
// calibration's two levels (its network alpha, beta, gamma and its intra_*),
// and each family's error is graded against kTargetsSimHierarchical and
// kTargetsSimFlat (targets.hpp). `collbench fit --simulate` writes the rows
// as simulated.csv and the grades as accuracy.csv's rows of params
// "simulator".
//
// The simulator is passed in as a function: transports/sim sits above models
// in tests/layers/layers.txt, so only the command line (harness/cli/cmd_fit.cpp)
// may call it; the tests pass a fake one.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/analysis.hpp"

namespace cb::models {

// accuracy.csv's params of the simulator's grades.
inline constexpr const char* kBySimulator = "simulator";

// Simulated seconds of `algo` at `params` (collective, ranks, count,
// datatype, op, placement and params.ranks_per_node, the measured layout)
// with `levels`: alpha, beta, gamma between nodes and intra_alpha_s,
// intra_beta_s_per_B inside one (a two-level ModelParams).
using SimulateFn = std::function<double(const AlgorithmEntry& algo, const CollParams& params,
                                        const ModelParams& levels)>;

struct SimulatedRow {
  const Measurement* row = nullptr;
  bool hierarchical = false;  // a composed algorithm (AlgorithmEntry::composition)
  double simulated_s = 0;
  double rel_err = 0;  // simulated / measured - 1
};

struct SimAgreement {
  std::vector<SimulatedRow> rows;  // in the order of the measured rows
  // Per (transport, family): params kBySimulator, scope sim-hierarchical or
  // sim-flat, rows and medians (|err| and signed at >= kLargeBytes, |err|
  // below it and over every size) and the worst collective as the family
  // grades have them (analysis.hpp), no picks.
  std::vector<Grade> grades;
};

// Simulates every schedule row of `rows` on two levels (2 or more nodes of 2
// or more ranks: Scenario::ranks_per_node >= 2 and p above it) whose
// transport has a two-level calibration in `calibrations`
// (ModelParams::two_level). Throws UsageError (one line, naming `file`) when
// no row is on two levels or none of them has such a calibration: the
// comparison would be empty.
SimAgreement sim_agreement(const std::vector<Measurement>& rows,
                           const std::vector<CalibrationInput>& calibrations,
                           const SimulateFn& simulate, const std::string& file);

// simulated.csv, one row per SimulatedRow: transport, collective, algorithm,
// datatype, op, placement, ranks, nodes, ranks_per_node, bytes, count, scope
// (sim-hierarchical or sim-flat), measured_s with its 95% CI (measured_lo_s,
// measured_hi_s; empty where the file has none), simulated_s and rel_err
// (simulated / measured - 1), every number at full precision.
std::string simulated_csv(const SimAgreement& s);

}  // namespace cb::models
