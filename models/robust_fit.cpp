#include "models/robust_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "algorithms/check.hpp"
#include "models/least_squares.hpp"
#include "models/parallel.hpp"

namespace cb::models {

namespace {

// The median of v (as median() computes it), reordering v in place.
double median_in_place(std::vector<double>& v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lo + hi) / 2;
}

// fit_relative_huber on a row-major m x k basis. The bootstrap calls it once
// per resample on a few dozen rows, so the buffers of its iterations are
// reused rather than allocated each time.
RobustFit fit_flat(const double* basis, const double* y, std::size_t m, std::size_t k,
                   const RobustOptions& opt) {
  CB_CHECK(m > 0, "nothing to fit");
  RobustFit fit;
  fit.identified.assign(k, false);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < k; ++j)
      fit.identified[j] = fit.identified[j] || basis[i * k + j] != 0;
  for (std::size_t i = 0; i < m; ++i)
    CB_CHECK(y[i] > 0 && std::isfinite(y[i]), "time {} is not positive", y[i]);

  fit.weights.assign(m, 1.0);
  fit.rel_residuals.assign(m, 0.0);
  std::vector<double> theta(k, 0.0);
  thread_local LinearSystem s;
  thread_local std::vector<double> abs_r, ordered;
  s.k = k;
  s.x.resize(m * k);
  s.y.resize(m);
  abs_r.resize(m);
  for (int iter = 0; iter < opt.max_iterations; ++iter) {
    // The rows in place (add_row's checks and copies, per row and
    // iteration, cost more than the arithmetic of these small fits).
    for (std::size_t i = 0; i < m; ++i) {
      const double w = std::sqrt(fit.weights[i]) / y[i];
      for (std::size_t j = 0; j < k; ++j) s.x[i * k + j] = basis[i * k + j] * w;
      s.y[i] = y[i] * w;
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
      for (std::size_t j = 0; j < k; ++j) pred += basis[i * k + j] * next[j];
      fit.rel_residuals[i] = (pred - y[i]) / y[i];
    }
    for (std::size_t i = 0; i < m; ++i) abs_r[i] = std::fabs(fit.rel_residuals[i]);
    // The weights need abs_r in row order; the median reorders a copy.
    ordered.assign(abs_r.begin(), abs_r.end());
    fit.scale = std::max(opt.scale_floor, 1.4826 * median_in_place(ordered));
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

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  return median_in_place(v);
}

RobustFit fit_relative_huber(const std::vector<std::vector<double>>& basis,
                             const std::vector<double>& y, const RobustOptions& opt) {
  CB_CHECK(basis.size() == y.size(), "{} basis rows for {} times", basis.size(), y.size());
  CB_CHECK(!basis.empty(), "nothing to fit");
  const std::size_t k = basis.front().size();
  std::vector<double> flat;
  flat.reserve(basis.size() * k);
  for (const auto& row : basis) {
    CB_CHECK(row.size() == k, "ragged basis: {} vs {} columns", row.size(), k);
    flat.insert(flat.end(), row.begin(), row.end());
  }
  return fit_flat(flat.data(), y.data(), y.size(), k, opt);
}

namespace {

// Up to `resamples` usable resamples of `rows` of the m rows each, drawn
// one after another from `seed`. A draw's use depends on the rows alone,
// never on a fit, so the fits can then run on any number of threads in any
// order and give the same interval.
struct Resamples {
  std::vector<std::size_t> rows;  // each resample's row indices, concatenated
  std::size_t count = 0;
};
Resamples draw_resamples(const std::vector<std::vector<double>>& basis, std::size_t m,
                         std::size_t rows, int resamples, std::uint64_t seed) {
  const std::size_t k = basis.empty() ? 0 : basis.front().size();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, m - 1);
  std::vector<bool> full(k, false);
  for (const auto& row : basis)
    for (std::size_t j = 0; j < k; ++j) full[j] = full[j] || row[j] != 0;
  Resamples drawn;
  std::vector<std::size_t> idx(rows);
  // Up to k + 1 distinct rows of a draw (only whether there are k matters).
  std::vector<const std::vector<double>*> distinct;
  for (int attempts = 0; drawn.count < static_cast<std::size_t>(resamples) &&
                         attempts < 20 * resamples;
       ++attempts) {
    // A resample must keep every column identified the way the full data is:
    // otherwise a parameter is silently forced to 0 in that draw.
    std::vector<bool> seen(k, false);
    distinct.clear();
    for (std::size_t i = 0; i < rows; ++i) {
      idx[i] = pick(rng);
      const std::vector<double>& row = basis[idx[i]];
      for (std::size_t j = 0; j < k; ++j) seen[j] = seen[j] || row[j] != 0;
      if (distinct.size() <= k &&
          std::none_of(distinct.begin(), distinct.end(),
                       [&](const std::vector<double>* d) { return *d == row; }))
        distinct.push_back(&row);
    }
    bool usable = distinct.size() >= std::min<std::size_t>(k, m);
    for (std::size_t j = 0; j < k; ++j) usable = usable && seen[j] == full[j];
    if (!usable) continue;
    drawn.rows.insert(drawn.rows.end(), idx.begin(), idx.end());
    ++drawn.count;
  }
  return drawn;
}

// Each parameter's 2.5% and 97.5% percentiles over its draws (NaN without
// draws). Resamples of `rows` < m rows (the m-out-of-n bootstrap) scatter
// more than the full data's fit would: the interval is scaled about the
// draws' median by sqrt(rows / m).
Interval percentile_interval(std::vector<std::vector<double>>& draws, std::size_t rows,
                             std::size_t m) {
  const std::size_t k = draws.size();
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

}  // namespace

Interval bootstrap_relative_huber(const std::vector<std::vector<double>>& basis,
                                  const std::vector<double>& y, const RobustOptions& opt,
                                  int resamples, std::uint64_t seed) {
  const std::size_t m = y.size();
  const std::size_t k = basis.empty() ? 0 : basis.front().size();
  const std::size_t rows = std::min(m, std::max<std::size_t>(opt.bootstrap_max_rows, 1));
  const Resamples drawn = draw_resamples(basis, m, rows, resamples, seed);
  const std::size_t n = drawn.count;
  std::vector<std::vector<double>> theta(n);
  const unsigned threads = static_cast<unsigned>(
      std::min<std::size_t>(std::max(opt.bootstrap_threads, 1u), std::max<std::size_t>(n, 1)));
  // One resample's rows and times per worker, reused from draw to draw.
  std::vector<std::vector<double>> b(threads, std::vector<double>(rows * k)),
      yy(threads, std::vector<double>(rows));
  for_each_index(n, threads, [&](std::size_t r, unsigned t) {
    for (std::size_t i = 0; i < rows; ++i) {
      const std::vector<double>& row = basis[drawn.rows[r * rows + i]];
      std::copy(row.begin(), row.end(), b[t].begin() + static_cast<std::ptrdiff_t>(i * k));
      yy[t][i] = y[drawn.rows[r * rows + i]];
    }
    theta[r] = fit_flat(b[t].data(), yy[t].data(), rows, k, opt).theta;
  });
  std::vector<std::vector<double>> draws(k);
  for (const std::vector<double>& th : theta)
    for (std::size_t j = 0; j < k; ++j) draws[j].push_back(th[j]);
  return percentile_interval(draws, rows, m);
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
