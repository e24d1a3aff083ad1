#include "models/lower_bound.hpp"

#include "algorithms/check.hpp"

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
  switch (coll) {
    case Collective::allreduce:
      c.beta = 2 * frac * n_bytes;
      c.gamma = frac * n_bytes;
      break;
    case Collective::reduce_scatter:
      c.beta = frac * n_bytes;
      c.gamma = frac * n_bytes;
      break;
    case Collective::allgather:
    case Collective::alltoall:
      c.beta = frac * n_bytes;
      break;
  }
  return c;
}

}  // namespace cb::models
