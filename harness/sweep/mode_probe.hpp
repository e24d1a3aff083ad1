// The mode probe: a short microbenchmark taken in the same launch and on the
// same group as what it describes, so that the model can price a
// configuration in the coherence mode it ran in (term `probe`, models/terms.hpp).
// On the 2-core VM this suite is developed on, cross-core communication runs
// in one of two modes that change between launches and even between
// configurations of one launch (models/README.md): the 8-byte exchange step
// takes ~0.18 us in one and ~0.6-0.7 us in the other.
//
// What it measures, on every rank of the group: each rank exchanges m bytes
// with rank ^ 1 (the last rank of an odd group idles) in two steps, the
// first from its untouched input, the second sending on the bytes the first
// has just received (as collectives forward what they received or reduced:
// on the VM the modes differ most there, models/README.md). The probe is
// half the median of those runs, seconds per exchange step (not net of an
// empty run), at m = kProbeSmallBytes (latency-bound) and m =
// kProbeLargeBytes (bandwidth-bound). Fixed counts of samples bound it:
// 10-19 ms per configuration on the 2-core VM, most of it the 256 KiB runs
// in the slow mode. `collbench calibrate`
// records the same probe (this function) beside its calibration, and
// `collbench run` before every configuration (CSV columns probe_small_us,
// probe_large_us).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "algorithms/schedule.hpp"
#include "transports/contract/transport_spec.hpp"
#include "harness/runtime/group.hpp"
#include "models/terms.hpp"

namespace cb {

inline constexpr std::size_t kProbeSmallBytes = 8;
inline constexpr std::size_t kProbeLargeBytes = std::size_t{256} << 10;

// This rank's schedule of the probe at m bytes on a group of p ranks.
Schedule mode_probe_schedule(int rank, int p, std::size_t m);

// The probe on `group` (2 or more ranks): its values on group rank 0, zeros
// on the others; nullopt on every rank when a signal stopped it.
std::optional<models::ModeProbe> measure_mode_probe(const TransportSpec& t,
                                                    const std::string& label, Group& group);

// A calibration's guard on its mode (term `probe` prices rows by the ratio of
// their probe to the calibration's, so every term the calibration measures
// must be in the mode its probe recorded). It holds the reference probe and
// probes again after each unit of measurement; on the VM the mode can change
// in the middle of a calibration and stay changed (models/README.md).
// Collective over `group` (2 or more ranks): rank 0 compares, every rank
// gets its answer. A signal during a probe throws Interrupted.
class ModeGuard {
 public:
  // Takes the reference probe.
  ModeGuard(const TransportSpec& t, const std::string& label, Group& group);

  // A fresh probe: whether it is in the reference's mode
  // (models::same_mode).
  bool still_in_mode();
  // Whether the last probe (the reference, before any) was in its mode.
  bool last_in_mode() const { return last_same_; }
  // The last probe becomes the reference: the mode changed for good.
  void adopt_last();
  // The reference (rank 0; zeros elsewhere).
  const models::ModeProbe& reference() const { return reference_; }

 private:
  models::ModeProbe probe();

  const TransportSpec& t_;
  const std::string& label_;
  Group& group_;
  models::ModeProbe reference_, last_;
  bool last_same_ = true;
};

}  // namespace cb
