#include "models/lower_bound.hpp"

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

}  // namespace cb::models
