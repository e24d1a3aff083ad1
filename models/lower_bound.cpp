#include "models/lower_bound.hpp"

#include <algorithm>

#include "algorithms/check.hpp"
#include "algorithms/collective.hpp"

namespace cb::models {

namespace {
int ceil_log2(int p) {
  int l = 0;
  while ((1LL << l) < p) ++l;
  return l;
}
}  // namespace

Cost lower_bound(Collective coll, int p, double n_bytes) {
  CB_CHECK(p >= 1, "p = {}", p);
  const double frac = static_cast<double>(p - 1) / p;
  Cost c;
  c.alpha = ceil_log2(p);
  const CollectiveSpec& spec = collective_spec(coll);
  c.beta = spec.busbw_steps * frac * n_bytes;
  c.gamma = spec.reducing ? frac * n_bytes : 0;
  return c;
}

double lower_bound_seconds(Collective coll, int p, double n_bytes, int ranks_per_node,
                           const ModelParams& m) {
  ModelParams bound{m.alpha_s, m.beta_s_per_B, m.gamma_s_per_B};
  if (!m.two_level() || ranks_per_node <= 0) return seconds(lower_bound(coll, p, n_bytes), bound);
  bound.alpha_s = std::min(m.alpha_s, m.intra_alpha_s);
  bound.beta_s_per_B = std::min(m.beta_s_per_B, m.intra_beta_s_per_B);
  Cost c = lower_bound(coll, p, n_bytes);
  if (m.network_gap_s < 0 || p < 3) return seconds(c, bound);
  // With a gap a rank's messages overlap their latencies, so the
  // single-port ceil(lg p) rounds no longer bound: what does is that every
  // rank needs (or feeds) all p - 1 others, and before 2 alpha no data can
  // have been forwarded, so one port must serve p - 1 messages of at least
  // g' (the smaller of the gap and the node's alpha) each, the last alpha
  // after the first began.
  const double a = bound.alpha_s;
  const double hold = std::min(m.network_gap_s, m.intra_alpha_s);
  c.alpha = 0;
  return seconds(c, bound) + std::min(2 * a, a + (p - 2) * hold);
}

}  // namespace cb::models
