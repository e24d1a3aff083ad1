// What `collbench calibrate` prints on rank 0: every microbenchmark's table
// as measured, the fitted baseline and terms a line each, and the warnings
// that say when a calibration cannot be trusted. Console text only; the
// file is models::format_calibration's.
#pragma once

#include "harness/calibrate/measure.hpp"
#include "models/calibration.hpp"

namespace cb::calibrate {

// Calibrating on a busy machine bakes the scheduler into alpha: a warning
// (stderr) when the latency-bound ping-pongs scattered as only a busy
// scheduler scatters them, instead of silently accepting them.
void warn_about_scatter(const Measurements& m);

// Every microbenchmark's table, as measured, on transport `label`.
void print_measurements(const Measurements& m, const std::string& label);

// The fitted baseline, the intra-node level of a two-level calibration, and
// every term of kTerms in its order, each line starting with the term's name.
void print_fit(const models::Calibration& c);

// How the calibration kept to its probe's mode; a warning where it could not.
void print_mode_kept(const Measurements& m);

}  // namespace cb::calibrate
