#include "models/least_squares.hpp"

#include <cmath>
#include <limits>

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
  // (message counts vs byte counts) differ by ~10 orders of magnitude.
  std::vector<double> a(m * k);
  std::vector<double> scale(k);
  for (std::size_t j = 0; j < k; ++j) {
    double norm = 0;
    for (std::size_t i = 0; i < m; ++i) norm += s.x[i * s.k + cols[j]] * s.x[i * s.k + cols[j]];
    norm = std::sqrt(norm);
    if (norm == 0) return std::nullopt;
    scale[j] = norm;
    for (std::size_t i = 0; i < m; ++i) a[j * m + i] = s.x[i * s.k + cols[j]] / norm;
  }
  std::vector<double> b = s.y;
  std::vector<double> diag(k);
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
  std::vector<double> z(k);
  for (std::size_t jj = k; jj-- > 0;) {
    double v = b[jj];
    for (std::size_t c = jj + 1; c < k; ++c) v -= a[c * m + jj] * z[c];
    z[jj] = v / diag[jj];
  }
  std::vector<double> theta(s.k, 0.0);
  for (std::size_t j = 0; j < k; ++j) theta[cols[j]] = z[j] / scale[j];
  return theta;
}

}  // namespace

std::optional<std::vector<double>> solve_least_squares(const LinearSystem& s) {
  std::vector<std::size_t> cols(s.k);
  for (std::size_t j = 0; j < s.k; ++j) cols[j] = j;
  return solve_on_columns(s, cols);
}

std::vector<double> solve_nnls(const LinearSystem& s) {
  CB_CHECK(s.k <= 8, "subset NNLS is meant for few columns, got {}", s.k);
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
