#include "harness/sweep/mode_probe.hpp"

#include <utility>
#include <vector>

#include "transports/contract/interrupt.hpp"
#include "harness/sweep/time_schedule.hpp"
#include "models/mode_probe.hpp"

namespace cb {

Schedule mode_probe_schedule(int rank, int p, std::size_t m) {
  Schedule s;
  // Not a collective: allgather of uint8 only sizes the buffers (m bytes
  // of input, p * m >= 2m of output).
  s.coll = Collective::allgather;
  s.algorithm = "mode-probe";
  s.p = p;
  s.rank = rank;
  s.count = m;
  s.dtype = DataType::uint8;
  s.steps.resize(2);
  const int peer = rank ^ 1;
  if (peer < p) {
    // Step 0 exchanges untouched input; step 1 sends on what step 0 has
    // just written, as collectives forward what they received or reduced.
    s.steps[0].sends.push_back({peer, Region{kInput, 0, m}});
    s.steps[0].recvs.push_back({peer, Region{kOutput, 0, m}, RecvMode::copy});
    s.steps[1].sends.push_back({peer, Region{kOutput, 0, m}});
    s.steps[1].recvs.push_back({peer, Region{kOutput, m, m}, RecvMode::copy});
  }
  s.total_steps = s.steps.size();
  return s;
}

std::optional<models::ModeProbe> measure_mode_probe(const TransportSpec& t,
                                                    const std::string& label, Group& group) {
  // Fixed sample counts (no adaptive CI): 40 small runs take ~0.1 ms, 20
  // large ones (3 warm-ups more) 1-20 ms on the VM, depending on the mode.
  const auto step_s = [&](std::size_t m, int iterations) -> std::optional<double> {
    SamplingPlan plan;
    plan.warmup = 3;
    plan.iterations = iterations;
    plan.verify = false;
    const Schedule s = mode_probe_schedule(group.rank(), group.size(), m);
    const std::optional<double> run = time_schedule(t, label, s, group, plan);
    if (!run) return std::nullopt;
    return *run / 2;  // two exchange steps per run
  };
  const std::optional<double> small = step_s(kProbeSmallBytes, 40);
  if (!small) return std::nullopt;
  const std::optional<double> large = step_s(kProbeLargeBytes, 20);
  if (!large) return std::nullopt;
  return models::ModeProbe{*small, *large};
}

ModeGuard::ModeGuard(const TransportSpec& t, const std::string& label, Group& group)
    : t_(t), label_(label), group_(group), reference_(probe()), last_(reference_) {}

models::ModeProbe ModeGuard::probe() {
  const std::optional<models::ModeProbe> p = measure_mode_probe(t_, label_, group_);
  if (!p) throw Interrupted(interrupt_signal(), "during calibrate; nothing written");
  return *p;
}

bool ModeGuard::still_in_mode() {
  last_ = probe();
  const bool same = group_.rank() == 0 && models::same_mode(last_, reference_);
  last_same_ = group_.broadcast_from_root(same ? 1 : 0) != 0;
  return last_same_;
}

void ModeGuard::adopt_last() {
  reference_ = last_;
  last_same_ = true;
}

}  // namespace cb
