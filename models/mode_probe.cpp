#include "models/mode_probe.hpp"

namespace cb::models {
namespace {

void scale(std::vector<SizeRange>& ranges, double latency, double bandwidth) {
  for (SizeRange& r : ranges) {
    r.alpha_s *= latency;
    r.beta_s_per_B *= bandwidth;
  }
}

void scale(Curve& c, double by) {
  for (double& v : c.s_per_B) v *= by;
}

}  // namespace

InMode in_mode(const ModelParams& base, const ModelTerms& terms, const ModeProbe& row) {
  InMode out{base, terms};
  if (!row.measured() || !terms.probe.measured()) return out;
  const double latency = row.small_s / terms.probe.small_s;
  const double bandwidth = row.large_s / terms.probe.large_s;
  ModelTerms& t = out.terms;
  out.base.alpha_s *= latency;
  out.base.beta_s_per_B *= bandwidth;
  scale(t.oneway, latency, bandwidth);
  scale(t.exchange, latency, bandwidth);
  scale(t.exchange_reduce, latency, bandwidth);
  scale(t.exchange_staged, latency, bandwidth);
  t.run_s *= latency;
  t.overhead_s *= latency;
  t.flight_s *= latency;
  scale(t.forward, bandwidth);
  scale(t.incast, bandwidth);
  scale(t.incast_sending, bandwidth);
  // The row's own probe is now the calibration's: scaling again changes nothing.
  t.probe = row;
  return out;
}

}  // namespace cb::models
