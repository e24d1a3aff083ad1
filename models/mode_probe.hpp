// Term (i), the mode probe (terms.hpp): the calibration's parameters moved
// into the coherence mode a measured row ran in, by the ratio of the row's
// probe to the calibration's (both from harness/sweep/mode_probe.hpp).
//
// What scales with what (measured: models/README.md, "Term (i)"):
//  - latency-like, by small ratio = row.small_s / calibration's small_s
//    (the 8-byte exchange step): the baseline alpha, every size range's
//    alpha ((a), (c), (f)), the run's fixed cost run_s (a), o (d) and the
//    flight time F (g);
//  - bandwidth-like, by large ratio = row.large_s / calibration's large_s
//    (the 256 KiB exchange step): the baseline beta, every size range's
//    beta, the forwarding cost per byte (e) and the incast cost per byte (h);
//  - not scaled: what a rank does alone in its own cache and memory, the
//    reduce gamma, the copy and reduce curves and the cost per local op (b).
#pragma once

#include "models/model_params.hpp"
#include "models/terms.hpp"

namespace cb::models {

struct InMode {
  ModelParams base;
  ModelTerms terms;
};

// `base` and `terms` scaled into the mode of `row`. Unchanged (a copy) when
// `row` or terms.probe is not measured.
InMode in_mode(const ModelParams& base, const ModelTerms& terms, const ModeProbe& row);

}  // namespace cb::models
