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
  if (m.two_level() && ranks_per_node > 0) {
    bound.alpha_s = std::min(m.alpha_s, m.intra_alpha_s);
    bound.beta_s_per_B = std::min(m.beta_s_per_B, m.intra_beta_s_per_B);
  }
  return seconds(lower_bound(coll, p, n_bytes), bound);
}

}  // namespace cb::models
