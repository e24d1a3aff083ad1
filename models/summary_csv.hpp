// fit/summary.csv: what `collbench fit` read and what it left out, the facts
// of model-report.md that no other CSV of the fit holds
// (scripts/model_report.py renders the report from this file and the others).
// One row per fact, in the order the report shows them; columns kind,
// transport, number, text (number: not `count`, which results CSVs hold):
//   source          text = the results file as given, number = its rows
//   configs         number = configurations (each with its own line in fit.csv)
//   calibration     transport, text = the calibration file (one per --calibration)
//   transport       transport, number = rows of its global fit, empty when it
//                   has none (no usable schedule rows); one per transport
//   excluded        transport, number = rows left out of its global fit, text = why
//   uncalibrated    transport: not predicted out of sample (calibrations were
//                   given, none of this transport)
//   oversubscribed  number = rows measured with more ranks than cores (only when > 0)
//   note            transport, text = a caveat about the rows its fit used
//   error_band      number = the fraction the model-error plot shades around
//                   y = x (targets.hpp, kErrorBand)
//   crossover_band  number = the factor the crossover plot shades around
//                   y = x (targets.hpp, kCrossoverBand)
//   shown_level     text = a level the plots show (report_levels.hpp,
//                   shown_levels), one row each, in the plots' order
//   term            text = one model term: name, what it prices, what it is
//                   fitted from (terms.hpp), in the order the ablation adds them
//   collective      text = a collective's name, in the registry's order (the
//                   order the report lists collectives in)
#pragma once

#include <string>

#include "models/analysis.hpp"

namespace cb::models {

std::string summary_csv(const Analysis& a);

}  // namespace cb::models
