// model-report.md: the readable summary of `collbench fit` (µs and GB/s;
// GB = 1e9 B). Sections: fitted parameters per transport (and the
// calibration), what was left out of the global fit and why, model error per
// algorithm (median and worst relative error, all sizes and sizes >= 64 KiB),
// per-configuration lines with knees, predicted vs measured crossovers, and
// the best algorithm per size with the regret of the model's choice.
#pragma once

#include <string>

#include "models/analysis.hpp"

namespace cb::models {

std::string model_report(const Analysis& a);

}  // namespace cb::models
