// model-report.md: the readable summary of `collbench fit` (µs and GB/s;
// GB = 1e9 B). Sections: fitted parameters per transport (and the
// calibration), what was left out of the global fit and why, model error per
// algorithm (median and worst relative error, all sizes and sizes >= 64 KiB),
// per-configuration lines with knees, predicted vs measured crossovers, and
// the best algorithm per size with the regret of the model's choice.
#pragma once

#include <string>
#include <string_view>

#include "models/analysis.hpp"

namespace cb::models {

std::string model_report(const Analysis& a);

// Text made safe for a markdown table cell: \ | * ` < > [ ] get a backslash
// (a tie set "a|b" would otherwise split the cell).
std::string md_escape(std::string_view text);

// One sentence about the sign of a median signed relative error, generated
// from the number: "<what>: the model over-predicts (median +12%)." for a
// positive value, "under-predicts" for a negative one.
std::string sign_prose(std::string_view what, double signed_median);

}  // namespace cb::models
