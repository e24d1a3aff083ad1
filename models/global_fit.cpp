#include "models/global_fit.hpp"

#include "algorithms/check.hpp"

namespace cb::models {

GlobalFit fit_global(const std::vector<Cost>& basis, const std::vector<double>& seconds,
                     int resamples, std::uint64_t seed, const RobustOptions& opt) {
  CB_CHECK(basis.size() == seconds.size() && !basis.empty(), "{} rows, {} times", basis.size(),
           seconds.size());
  std::vector<std::vector<double>> rows;
  rows.reserve(basis.size());
  for (const Cost& c : basis) rows.push_back({c.alpha, c.beta, c.gamma});
  const RobustFit f = fit_relative_huber(rows, seconds, opt);
  const Interval ci = bootstrap_relative_huber(rows, seconds, opt, resamples, seed);
  GlobalFit g;
  g.params = {f.theta[0], f.theta[1], f.theta[2]};
  g.lo = {ci.lo[0], ci.lo[1], ci.lo[2]};
  g.hi = {ci.hi[0], ci.hi[1], ci.hi[2]};
  for (std::size_t j = 0; j < 3; ++j) g.identified[j] = f.identified[j];
  g.r_squared = relative_r_squared(seconds, f.rel_residuals);
  g.points = seconds.size();
  g.rel_residuals = f.rel_residuals;
  return g;
}

}  // namespace cb::models
