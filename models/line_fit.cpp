#include "models/line_fit.hpp"

#include "algorithms/check.hpp"

namespace cb::models {

LineFit fit_line(const std::vector<double>& bytes, const std::vector<double>& seconds,
                 int resamples, std::uint64_t seed, const RobustOptions& opt) {
  CB_CHECK(bytes.size() == seconds.size() && bytes.size() >= 2, "{} sizes, {} times",
           bytes.size(), seconds.size());
  std::vector<std::vector<double>> basis;
  basis.reserve(bytes.size());
  for (double n : bytes) basis.push_back({1.0, n});
  const RobustFit f = fit_relative_huber(basis, seconds, opt);
  const Interval ci = bootstrap_relative_huber(basis, seconds, opt, resamples, seed);
  LineFit out;
  out.a_s = f.theta[0];
  out.b_s_per_B = f.theta[1];
  out.a_lo_s = ci.lo[0];
  out.a_hi_s = ci.hi[0];
  out.b_lo_s_per_B = ci.lo[1];
  out.b_hi_s_per_B = ci.hi[1];
  out.r_squared = relative_r_squared(seconds, f.rel_residuals);
  out.points = bytes.size();
  out.rel_residuals = f.rel_residuals;
  return out;
}

}  // namespace cb::models
