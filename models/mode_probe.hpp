// Term `probe`, the mode probe (terms.hpp): the calibration's parameters moved
// into the coherence mode a measured row ran in, by the ratio of the row's
// probe to the calibration's (both from harness/sweep/mode_probe.hpp).
//
// What scales with what (models/README.md, "Term `probe`"):
//  - by the small ratio = row.small_s / calibration's small_s (the 8-byte
//    step): the messages' latency, the baseline alpha, every size range's
//    alpha (`range`, `concurrency`, `staged`), the run's fixed cost run_s `range`, o `overhead` and the
//    flight time F `flight`. Between two calibrations in the two modes the 8-byte
//    ping-pong and exchange moved 3.8-3.9x where the probe moved 3.5x, and
//    rows below 64 KiB follow the ratio (slope 0.90-0.95 in log);
//  - by the large ratio = row.large_s / calibration's large_s (the 256 KiB
//    step that sends on what it just received): what forwarding freshly
//    written bytes `forward` and incast `incast` add per byte. The relay ping-pong at
//    256 KiB-4 MiB moved 10-18x where this probe moved 17x;
//  - not scaled: the bytes on the wire (every beta), although the plain
//    ping-pong and exchange at 1-4 MiB moved 2.8-6.7x between those two
//    calibrations: rows at >= 64 KiB do not follow the small ratio
//    (correlation 0.20-0.24 in log) and scaling beta by it made them worse
//    in 4 of 6 pairs; and what a rank does alone in its own cache and
//    memory `copy`, gamma: copies in cache did not move between the modes,
//    out of cache they moved with the machine's load.
#pragma once

#include "models/model_params.hpp"
#include "models/terms.hpp"

namespace cb::models {

struct InMode {
  ModelParams base;
  ModelTerms terms;
};

// Whether probes `a` and `b` describe the same mode: each part within
// kSameModeRatio of the other. On the VM the two modes' probes differ by
// 2.5-3x in both parts (0.28 vs 0.7-0.87 us, 32 vs 84-111 us), and repeats
// within one mode by under 1.3x, so the bound sits between. Unmeasured
// probes (no peer, --mode-probe off) are of no mode: never the same.
inline constexpr double kSameModeRatio = 1.5;
bool same_mode(const ModeProbe& a, const ModeProbe& b);

// `base` and `terms` scaled into the mode of `row`. Unchanged (a copy) when
// `row` or terms.probe is not measured.
InMode in_mode(const ModelParams& base, const ModelTerms& terms, const ModeProbe& row);

}  // namespace cb::models
