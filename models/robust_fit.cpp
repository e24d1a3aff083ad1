#include "models/robust_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "algorithms/check.hpp"
#include "models/least_squares.hpp"

namespace cb::models {

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2;
}

RobustFit fit_relative_huber(const std::vector<std::vector<double>>& basis,
                             const std::vector<double>& y, const RobustOptions& opt) {
  CB_CHECK(basis.size() == y.size(), "{} basis rows for {} times", basis.size(), y.size());
  CB_CHECK(!basis.empty(), "nothing to fit");
  const std::size_t m = y.size();
  const std::size_t k = basis.front().size();
  RobustFit fit;
  fit.identified.assign(k, false);
  for (const auto& row : basis) {
    CB_CHECK(row.size() == k, "ragged basis: {} vs {} columns", row.size(), k);
    for (std::size_t j = 0; j < k; ++j) fit.identified[j] = fit.identified[j] || row[j] != 0;
  }
  for (double t : y) CB_CHECK(t > 0 && std::isfinite(t), "time {} is not positive", t);

  fit.weights.assign(m, 1.0);
  fit.rel_residuals.assign(m, 0.0);
  std::vector<double> theta(k, 0.0);
  for (int iter = 0; iter < opt.max_iterations; ++iter) {
    LinearSystem s{k, {}, {}};
    s.x.reserve(m * k);
    s.y.reserve(m);
    std::vector<double> xi(k);
    for (std::size_t i = 0; i < m; ++i) {
      const double w = std::sqrt(fit.weights[i]) / y[i];
      for (std::size_t j = 0; j < k; ++j) xi[j] = basis[i][j] * w;
      s.add_row(xi, y[i] * w);
    }
    std::vector<double> next;
    if (opt.non_negative) {
      next = solve_nnls(s);
    } else {
      auto sol = solve_least_squares(s);
      next = sol ? *sol : solve_nnls(s);
    }
    for (std::size_t i = 0; i < m; ++i) {
      double pred = 0;
      for (std::size_t j = 0; j < k; ++j) pred += basis[i][j] * next[j];
      fit.rel_residuals[i] = (pred - y[i]) / y[i];
    }
    std::vector<double> abs_r(m);
    for (std::size_t i = 0; i < m; ++i) abs_r[i] = std::fabs(fit.rel_residuals[i]);
    fit.scale = std::max(opt.scale_floor, 1.4826 * median(abs_r));
    const double cut = opt.huber_c * fit.scale;
    for (std::size_t i = 0; i < m; ++i)
      fit.weights[i] = abs_r[i] <= cut ? 1.0 : cut / abs_r[i];
    double change = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const double ref = std::max(std::fabs(next[j]), std::numeric_limits<double>::min());
      change = std::max(change, std::fabs(next[j] - theta[j]) / ref);
    }
    theta = next;
    if (iter > 0 && change < 1e-10) break;
  }
  fit.theta = theta;
  return fit;
}

Interval bootstrap_relative_huber(const std::vector<std::vector<double>>& basis,
                                  const std::vector<double>& y, const RobustOptions& opt,
                                  int resamples, std::uint64_t seed) {
  const std::size_t m = y.size();
  const std::size_t k = basis.empty() ? 0 : basis.front().size();
  const std::size_t rows = std::min(m, std::max<std::size_t>(opt.bootstrap_max_rows, 1));
  std::vector<std::vector<double>> draws(k);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, m - 1);
  std::vector<std::vector<double>> b(rows);
  std::vector<double> yy(rows);
  std::vector<bool> full(k, false);
  for (const auto& row : basis)
    for (std::size_t j = 0; j < k; ++j) full[j] = full[j] || row[j] != 0;
  int attempts = 0;
  for (int r = 0; r < resamples && attempts < 20 * resamples; ++attempts) {
    // A resample must keep every column identified the way the full data is:
    // otherwise a parameter is silently forced to 0 in that draw.
    std::vector<bool> seen(k, false);
    std::set<std::vector<double>> distinct;
    for (std::size_t i = 0; i < rows; ++i) {
      const std::size_t idx = pick(rng);
      b[i] = basis[idx];
      yy[i] = y[idx];
      for (std::size_t j = 0; j < k; ++j) seen[j] = seen[j] || b[i][j] != 0;
      if (distinct.size() <= k) distinct.insert(b[i]);
    }
    bool usable = distinct.size() >= std::min<std::size_t>(k, m);
    for (std::size_t j = 0; j < k; ++j) usable = usable && seen[j] == full[j];
    if (!usable) continue;
    const RobustFit f = fit_relative_huber(b, yy, opt);
    for (std::size_t j = 0; j < k; ++j) draws[j].push_back(f.theta[j]);
    ++r;
  }
  Interval out;
  out.lo.assign(k, std::numeric_limits<double>::quiet_NaN());
  out.hi.assign(k, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t j = 0; j < k; ++j) {
    auto& d = draws[j];
    if (d.empty()) continue;
    std::sort(d.begin(), d.end());
    const auto at = [&](double q) {
      const double pos = q * static_cast<double>(d.size() - 1);
      const auto i = static_cast<std::size_t>(pos);
      const double frac = pos - static_cast<double>(i);
      return i + 1 < d.size() ? d[i] * (1 - frac) + d[i + 1] * frac : d[i];
    };
    out.lo[j] = at(0.025);
    out.hi[j] = at(0.975);
    if (rows < m) {
      const double center = at(0.5);
      const double shrink =
          std::sqrt(static_cast<double>(rows) / static_cast<double>(m));
      out.lo[j] = center + (out.lo[j] - center) * shrink;
      out.hi[j] = center + (out.hi[j] - center) * shrink;
    }
  }
  return out;
}

double relative_r_squared(const std::vector<double>& y, const std::vector<double>& rel_residuals) {
  double sw = 0, swy = 0;
  for (double t : y) {
    sw += 1 / (t * t);
    swy += t / (t * t);
  }
  const double ybar = swy / sw;
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    ss_res += rel_residuals[i] * rel_residuals[i];
    ss_tot += (y[i] - ybar) * (y[i] - ybar) / (y[i] * y[i]);
  }
  if (ss_tot == 0) return ss_res == 0 ? 1.0 : 0.0;
  return 1 - ss_res / ss_tot;
}

}  // namespace cb::models
