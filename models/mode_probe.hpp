// Term (i), the mode probe (terms.hpp): the calibration's parameters moved
// into the coherence mode a measured row ran in, by the ratio of the row's
// probe to the calibration's (both from harness/sweep/mode_probe.hpp).
//
// What scales with what (measured between two calibrations, one in each
// mode: models/README.md, "Term (i)"):
//  - by the small ratio = row.small_s / calibration's small_s (the 8-byte
//    step): the messages, both their latency and their bytes on the wire:
//    the baseline alpha and beta, every size range's alpha and beta ((a),
//    (c), (f)), the run's fixed cost run_s (a), o (d) and the flight time F
//    (g). The 8-byte ping-pong and exchange moved 3.8-3.9x between the
//    modes where the probe moved 3.5x; the plain ping-pong and exchange at
//    1-4 MiB 2.8-6.7x; at 256 KiB, in cache, ~1x;
//  - by the large ratio = row.large_s / calibration's large_s (the 256 KiB
//    step that sends on what it just received): what forwarding freshly
//    written bytes (e) and incast (h) add per byte. The relay ping-pong at
//    256 KiB-4 MiB moved 10-18x where this probe moved 17x;
//  - not scaled: what a rank does alone in its own cache and memory, the
//    reduce gamma, the copy and reduce curves and the cost per local op
//    (b): the copies in cache did not move between the modes, and out of
//    cache they moved with the machine's load, not with the mode.
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
