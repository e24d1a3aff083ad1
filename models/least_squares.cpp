#include "models/least_squares.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include "algorithms/check.hpp"

namespace cb::models {

void LinearSystem::add_row(const std::vector<double>& xi, double yi) {
  CB_CHECK(xi.size() == k, "row has {} entries, system has {} columns", xi.size(), k);
  x.insert(x.end(), xi.begin(), xi.end());
  y.push_back(yi);
}

namespace {

// Least squares on the columns listed in `cols`; nullopt if they are dependent.
std::optional<std::vector<double>> solve_on_columns(const LinearSystem& s,
                                                    const std::vector<std::size_t>& cols) {
  const std::size_t m = s.rows();
  const std::size_t k = cols.size();
  if (k == 0) return std::vector<double>(s.k, 0.0);
  if (m < k) return std::nullopt;
  // Column-major copy, each column scaled to unit norm: the model's columns
  // (message counts vs byte counts) differ by ~10 orders of magnitude. The
  // buffers are reused: the fits solve 2^k subsets per iteration, and fresh
  // buffers of up to 10^6 rows each time cost more than the arithmetic.
  thread_local std::vector<double> a, scale, b, diag, z;
  a.resize(m * k);
  scale.resize(k);
  for (std::size_t j = 0; j < k; ++j) {
    double norm = 0;
    for (std::size_t i = 0; i < m; ++i) norm += s.x[i * s.k + cols[j]] * s.x[i * s.k + cols[j]];
    norm = std::sqrt(norm);
    if (norm == 0) return std::nullopt;
    scale[j] = norm;
    for (std::size_t i = 0; i < m; ++i) a[j * m + i] = s.x[i * s.k + cols[j]] / norm;
  }
  b = s.y;
  diag.resize(k);
  for (std::size_t j = 0; j < k; ++j) {
    double norm = 0;
    for (std::size_t i = j; i < m; ++i) norm += a[j * m + i] * a[j * m + i];
    norm = std::sqrt(norm);
    // A column already (almost) spanned by the earlier ones: not identifiable.
    if (norm < 1e-9) return std::nullopt;
    const double alpha = a[j * m + j] > 0 ? -norm : norm;
    // Householder vector v = column - alpha*e_j, stored in place.
    a[j * m + j] -= alpha;
    double vnorm2 = 0;
    for (std::size_t i = j; i < m; ++i) vnorm2 += a[j * m + i] * a[j * m + i];
    for (std::size_t c = j + 1; c < k; ++c) {
      double dot = 0;
      for (std::size_t i = j; i < m; ++i) dot += a[j * m + i] * a[c * m + i];
      const double f = 2 * dot / vnorm2;
      for (std::size_t i = j; i < m; ++i) a[c * m + i] -= f * a[j * m + i];
    }
    double dot = 0;
    for (std::size_t i = j; i < m; ++i) dot += a[j * m + i] * b[i];
    const double f = 2 * dot / vnorm2;
    for (std::size_t i = j; i < m; ++i) b[i] -= f * a[j * m + i];
    diag[j] = alpha;
  }
  // Back substitution on R (diagonal in diag, above it in a).
  z.resize(k);
  for (std::size_t jj = k; jj-- > 0;) {
    double v = b[jj];
    for (std::size_t c = jj + 1; c < k; ++c) v -= a[c * m + jj] * z[c];
    z[jj] = v / diag[jj];
  }
  std::vector<double> theta(s.k, 0.0);
  for (std::size_t j = 0; j < k; ++j) theta[cols[j]] = z[j] / scale[j];
  return theta;
}

// solve_nnls for two columns without allocating: the fits solve millions of
// tiny systems (a line per bootstrap resample and per knee segment), where
// the per-subset copies cost more than the arithmetic. Every quantity is
// computed with the same floating-point operations in the same order as
// solve_on_columns does for the subsets {0}, {1} and {0, 1}, so the result is
// bit for bit the general path's; subsets {0} and {0, 1} share their first
// Householder step, which is identical in both. Long on purpose: it follows
// solve_on_columns operation by operation, and helpers would hide that
// correspondence, which the bit-for-bit equality rests on.
// residual_sum_squares for two columns, the same operations in the same
// order, on a candidate that needs no vector.
double rss_two_columns(const LinearSystem& s, const std::array<double, 2>& theta) {
  double rss = 0;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    double pred = 0;
    pred += s.x[i * 2] * theta[0];
    pred += s.x[i * 2 + 1] * theta[1];
    rss += (pred - s.y[i]) * (pred - s.y[i]);
  }
  return rss;
}

std::vector<double> nnls_two_columns(const LinearSystem& s) {
  const std::size_t m = s.rows();
  const double* x = s.x.data();
  // Candidates in arrays, not vectors: this runs millions of times, and
  // their allocations cost more than the arithmetic.
  std::array<double, 2> best{0.0, 0.0};
  double best_rss = rss_two_columns(s, best);
  if (m == 0) return {best[0], best[1]};
  thread_local std::vector<double> a0, a1, a1_alone, b, b_alone;
  a0.resize(m);
  a1.resize(m);
  a1_alone.resize(m);
  double norm0 = 0, norm1 = 0;
  for (std::size_t i = 0; i < m; ++i) norm0 += x[i * 2] * x[i * 2];
  for (std::size_t i = 0; i < m; ++i) norm1 += x[i * 2 + 1] * x[i * 2 + 1];
  norm0 = std::sqrt(norm0);
  norm1 = std::sqrt(norm1);
  for (std::size_t i = 0; i < m; ++i) a0[i] = x[i * 2] / norm0;
  for (std::size_t i = 0; i < m; ++i) a1[i] = a1_alone[i] = x[i * 2 + 1] / norm1;

  // One Householder step on column v from row j: reflects `others` (each of
  // length m) and rhs, returns the diagonal entry, or nullopt when v is
  // (almost) spanned by the earlier columns.
  const auto step = [m](double* v, std::size_t j, double* other,
                        double* rhs) -> std::optional<double> {
    double norm = 0;
    for (std::size_t i = j; i < m; ++i) norm += v[i] * v[i];
    norm = std::sqrt(norm);
    if (norm < 1e-9) return std::nullopt;
    const double alpha = v[j] > 0 ? -norm : norm;
    v[j] -= alpha;
    double vnorm2 = 0;
    for (std::size_t i = j; i < m; ++i) vnorm2 += v[i] * v[i];
    if (other) {
      double dot = 0;
      for (std::size_t i = j; i < m; ++i) dot += v[i] * other[i];
      const double f = 2 * dot / vnorm2;
      for (std::size_t i = j; i < m; ++i) other[i] -= f * v[i];
    }
    double dot = 0;
    for (std::size_t i = j; i < m; ++i) dot += v[i] * rhs[i];
    const double f = 2 * dot / vnorm2;
    for (std::size_t i = j; i < m; ++i) rhs[i] -= f * v[i];
    return alpha;
  };

  std::optional<std::array<double, 2>> only0, only1, both;
  if (norm0 != 0) {
    b = s.y;
    // Column 1 rides along for the pair {0, 1}; it does not change column 0's
    // step or the right-hand side.
    const std::optional<double> d0 = step(a0.data(), 0, m >= 2 && norm1 != 0 ? a1.data() : nullptr,
                                          b.data());
    if (d0) {
      only0 = std::array<double, 2>{b[0] / *d0 / norm0, 0.0};
      if (m >= 2 && norm1 != 0)
        if (const std::optional<double> d1 = step(a1.data(), 1, nullptr, b.data())) {
          const double z1 = b[1] / *d1;
          const double z0 = (b[0] - a1[0] * z1) / *d0;
          both = std::array<double, 2>{z0 / norm0, z1 / norm1};
        }
    }
  }
  if (norm1 != 0) {
    b_alone = s.y;
    if (const std::optional<double> d = step(a1_alone.data(), 0, nullptr, b_alone.data()))
      only1 = std::array<double, 2>{0.0, b_alone[0] / *d / norm1};
  }
  for (const auto* theta : {&only0, &only1, &both}) {
    if (!*theta || !((**theta)[0] >= 0 && (**theta)[1] >= 0)) continue;
    const double rss = rss_two_columns(s, **theta);
    if (rss < best_rss) {
      best_rss = rss;
      best = **theta;
    }
  }
  return {best[0], best[1]};
}

}  // namespace

std::optional<std::vector<double>> solve_least_squares(const LinearSystem& s) {
  std::vector<std::size_t> cols(s.k);
  for (std::size_t j = 0; j < s.k; ++j) cols[j] = j;
  return solve_on_columns(s, cols);
}

std::vector<double> solve_nnls(const LinearSystem& s) {
  CB_CHECK(s.k <= 8, "subset NNLS is meant for few columns, got {}", s.k);
  if (s.k == 2) return nnls_two_columns(s);
  std::vector<double> best(s.k, 0.0);
  double best_rss = residual_sum_squares(s, best);
  for (unsigned mask = 1; mask < (1u << s.k); ++mask) {
    std::vector<std::size_t> cols;
    for (std::size_t j = 0; j < s.k; ++j)
      if (mask & (1u << j)) cols.push_back(j);
    const auto theta = solve_on_columns(s, cols);
    if (!theta) continue;
    bool feasible = true;
    for (double t : *theta) feasible = feasible && t >= 0;
    if (!feasible) continue;
    const double rss = residual_sum_squares(s, *theta);
    if (rss < best_rss) {
      best_rss = rss;
      best = *theta;
    }
  }
  return best;
}

double residual_sum_squares(const LinearSystem& s, const std::vector<double>& theta) {
  double rss = 0;
  for (std::size_t i = 0; i < s.rows(); ++i) {
    double pred = 0;
    for (std::size_t j = 0; j < s.k; ++j) pred += s.x[i * s.k + j] * theta[j];
    rss += (pred - s.y[i]) * (pred - s.y[i]);
  }
  return rss;
}

}  // namespace cb::models
