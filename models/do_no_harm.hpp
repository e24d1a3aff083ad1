// "Do no harm": a schedule replaces the library's own collective only where
// the model predicts a gain beyond the model's validated error there. The
// one rule, used by libcollbench-pmpi.so's `auto` (transports/mpi/pmpi);
// `recommend`'s selection files apply the measured analogue (CIs apart by
// more than the minimum effect, models/crossover.hpp).
//
// The validated error comes from `collbench fit --calibration` run on a
// sweep: its predictions.csv holds each measured row's relative error per
// parameter source ("calibration", "calibration+abcd" ...), and its
// accuracy.csv the median |error| per source. Both are looked for beside
// the calibration file, in fit/ or in the same directory (as recommend
// does).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "algorithms/types.hpp"

namespace cb::models {

// Whether a schedule predicted at `chosen_s` is faster than the library
// predicted at `library_s` (both SECONDS) beyond a relative error
// `rel_error` (a fraction, 0.12 = 12%) of each prediction: the library's
// time at its lowest, library_s * (1 - e), still exceeds the schedule's at
// its highest, chosen_s * (1 + e). A NaN or negative error counts as 0
// (no validated error: the prediction is taken as it is).
bool gain_beyond_error(double chosen_s, double library_s, double rel_error);

// The median |relative error| of one parameter source's predictions, per
// (collective, ranks, size band); bands split at models::kLargeBytes
// (64 KiB) as the accuracy targets do.
class ValidatedError {
 public:
  // From the text of a fit's predictions.csv: the rows of `params` (e.g.
  // "calibration+abcd") and `transport`. Throws UsageError naming `file`
  // on a malformed file; no such row gives an empty table.
  ValidatedError(const std::string& text, const std::string& file, const std::string& params,
                 const std::string& transport);

  // The error (a fraction) of the call's own (collective, p, band), else of
  // the collective's band over every p, else of the band over everything;
  // NaN when the fit validated nothing there.
  double at(Collective coll, int p, std::uint64_t bytes) const;
  bool empty() const { return by_cell_.empty(); }

 private:
  std::map<std::tuple<Collective, int, bool>, double> by_cell_;  // (coll, p, large)
  std::map<std::pair<Collective, bool>, double> by_collective_;
  std::map<bool, double> by_band_;
};

// The fit's files beside a calibration file `params_file` (fit/NAME, else
// NAME in its directory), or "" when there is none.
std::string fit_file_beside(const std::string& params_file, const std::string& name);

// The calibrated source the fit validated best for `transport`, from the
// text of its accuracy.csv: among "calibration" and "calibration+TERMS",
// the lowest worse-band median |error| (the larger of the >= 64 KiB and the
// smaller sizes' medians). Returns its label and that error, or nullopt when
// the file has none.
struct BestSource {
  std::string params;  // "calibration" or "calibration+range+copy+..."
  std::string terms;   // the terms as written after '+' ("" for the closed forms)
  double median_large = 0, median_small = 0;
};
std::optional<BestSource> best_calibrated_source(const std::string& accuracy_text,
                                                 const std::string& file,
                                                 const std::string& transport);

}  // namespace cb::models
