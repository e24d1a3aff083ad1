// One row per term of models::kTerms: how `collbench calibrate` measures it,
// how its measurements become its fields of the calibration, and the lines
// it prints for its fit. measure.cpp runs the rows' measurements, each in
// its phase (the message sweep and the count unit kept to the probe's mode,
// the rank's own work after it, the fan on 3 or more ranks), and their fits;
// console.cpp prints their lines in kTerms order. The table is in
// term_table.cpp; adding a term: docs/model.md, "Adding a term".
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "algorithms/schedule.hpp"
#include "harness/calibrate/measure.hpp"
#include "harness/runtime/group.hpp"
#include "models/calibration.hpp"
#include "models/terms.hpp"
#include "transports/contract/transport_spec.hpp"

namespace cb::calibrate {

// Times schedules on a group (the pair, or every rank of the fan) net of an
// empty run's `run_s` on the same group: median seconds of one run, max
// over the group's ranks per sample; rank 0's value, 0 elsewhere.
struct PairTimer {
  const TransportSpec& t;
  const std::string& label;
  Group& pair;
  double run_s = 0;
  double net(const Schedule& s) const;
  int rank() const { return pair.rank(); }
};

// One value per message size of the message sweep (kPingMin .. max_ping
// BYTES, doubling), appended to `into` once the sweep is kept.
struct SizeSeries {
  double (*at)(const PairTimer&, std::size_t bytes) = nullptr;
  std::vector<double>& (*into)(Measurements&) = nullptr;
};

// One value per message count k = 1, 2, 4 .. kMaxMessages of the count
// unit: k appended to `k_into`, the value to `into`.
struct CountSeries {
  double (*at)(const PairTimer&, int k) = nullptr;
  std::vector<double>& (*k_into)(Measurements&) = nullptr;
  std::vector<double>& (*into)(Measurements&) = nullptr;
};

// A term's part of calibrate. Every hook may be empty; the measurements run
// on every rank of the group, and only rank 0's values are fitted.
struct TermCalibration {
  models::Term term;
  // In the message sweep: each size is one unit with every term's series,
  // measured again while the probes around it are in another mode.
  SizeSeries per_size[2] = {};
  // In the count unit (kept to the mode the same way), before `in_mode`.
  CountSeries per_count = {};
  // Once in the count unit after the counts; the unit may be measured
  // again, so it assigns what it measures rather than appending.
  void (*in_mode)(const PairTimer&, Measurements&) = nullptr;
  // After the probe is taken, not kept to its mode: a rank's own work.
  void (*alone)(const PairTimer&, Measurements&) = nullptr;
  // On every rank of a group of 3 or more (net of that group's empty run),
  // sizes up to max_ping BYTES.
  void (*all_ranks)(const PairTimer&, std::size_t max_ping, Measurements&) = nullptr;
  // Its measurements into the calibration's fields (TermRecords and its
  // ModelTerms parameters), after the baseline and fit_terms.
  void (*fit)(const Measurements&, models::Calibration&) = nullptr;
  // Its fitted parameters, a line each (print_fit starts each with its name).
  std::vector<std::string> (*lines)(const models::Calibration&) = nullptr;
};

// The rows, in the order their measurements and fits run.
std::span<const TermCalibration> term_calibrations();

// The row of `term`.
const TermCalibration& term_calibration(models::Term term);

}  // namespace cb::calibrate
