#include "models/mode_probe.hpp"

namespace cb::models {
namespace {

void scale_latency(std::vector<SizeRange>& ranges, double by) {
  for (SizeRange& r : ranges) r.alpha_s *= by;
}

void scale(Curve& c, double by) {
  for (double& v : c.s_per_B) v *= by;
}

bool within(double a, double b) { return a <= b * kSameModeRatio && b <= a * kSameModeRatio; }

}  // namespace

bool same_mode(const ModeProbe& a, const ModeProbe& b) {
  return a.measured() && b.measured() && within(a.small_s, b.small_s) &&
         within(a.large_s, b.large_s);
}

InMode in_mode(const ModelParams& base, const ModelTerms& terms, const ModeProbe& row) {
  InMode out{base, terms};
  if (!row.measured() || !terms.probe.measured()) return out;
  const double latency = row.small_s / terms.probe.small_s;
  const double forwarded = row.large_s / terms.probe.large_s;
  ModelTerms& t = out.terms;
  // The messages' latency by the 8-byte ratio, their bytes on the wire not
  // at all; what forwarding and incast add per byte by the 256 KiB ratio.
  out.base.alpha_s *= latency;
  scale_latency(t.oneway, latency);
  scale_latency(t.exchange, latency);
  scale_latency(t.exchange_reduce, latency);
  scale_latency(t.exchange_staged, latency);
  t.run_s *= latency;
  t.overhead_s *= latency;
  t.flight_s *= latency;
  scale(t.forward, forwarded);
  scale(t.incast, forwarded);
  scale(t.incast_sending, forwarded);
  // The row's own probe is now the calibration's: scaling again changes nothing.
  t.probe = row;
  return out;
}

}  // namespace cb::models
