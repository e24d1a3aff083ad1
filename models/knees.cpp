#include "models/knees.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/check.hpp"
#include "models/robust_fit.hpp"

namespace cb::models {

namespace {

struct SegFit {
  double sse = std::numeric_limits<double>::infinity();
  double a = 0, b = 0;
  std::size_t outliers = 0;  // points with |relative residual| >= the cap
};

// Robust line over points i..j; its cost caps each point's squared relative
// residual at cap^2, so one wild point (a preempted run) cannot make, or
// hide, a knee.
SegFit fit_segment(const std::vector<double>& n, const std::vector<double>& t, std::size_t i,
                   std::size_t j, double cap) {
  std::vector<std::vector<double>> basis;
  std::vector<double> y;
  for (std::size_t q = i; q <= j; ++q) {
    basis.push_back({1.0, n[q]});
    y.push_back(t[q]);
  }
  const RobustFit f = fit_relative_huber(basis, y);
  SegFit out;
  out.a = f.theta[0];
  out.b = f.theta[1];
  out.sse = 0;
  for (double r : f.rel_residuals) {
    out.sse += std::min(r * r, cap * cap);
    out.outliers += std::fabs(r) >= cap;
  }
  return out;
}

}  // namespace

Piecewise detect_knees(const std::vector<double>& bytes, const std::vector<double>& seconds,
                       const KneeOptions& opt) {
  const std::size_t m = bytes.size();
  CB_CHECK(m == seconds.size() && m >= 1, "{} sizes, {} times", m, seconds.size());
  for (std::size_t i = 1; i < m; ++i) CB_CHECK(bytes[i - 1] <= bytes[i], "sizes not sorted");
  const double inf = std::numeric_limits<double>::infinity();

  // seg[i][j]: best line over points i..j (only for allowed segments).
  std::vector<std::vector<SegFit>> seg(m, std::vector<SegFit>(m));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = i; j < m; ++j)
      if (j - i + 1 >= std::min(opt.min_points, m))
        seg[i][j] = fit_segment(bytes, seconds, i, j, opt.outlier_cap);
  // A boundary may fall between points i-1 and i only where the size changes.
  const auto can_start = [&](std::size_t i) { return i == 0 || bytes[i - 1] < bytes[i]; };

  // best[k][j]: min SSE of points 0..j in k+1 segments; from[k][j]: start of the last.
  std::vector<std::vector<double>> best;
  std::vector<std::vector<std::size_t>> from;
  Piecewise chosen;
  double chosen_sse = inf;
  std::size_t chosen_outliers = 0;
  for (std::size_t k = 0; k < opt.max_segments; ++k) {
    best.emplace_back(m, inf);
    from.emplace_back(m, 0);
    for (std::size_t j = 0; j < m; ++j) {
      if (k == 0) {
        best[0][j] = seg[0][j].sse;
        continue;
      }
      for (std::size_t i = 1; i <= j; ++i) {
        if (!can_start(i) || best[k - 1][i - 1] == inf || seg[i][j].sse == inf) continue;
        const double v = best[k - 1][i - 1] + seg[i][j].sse;
        if (v < best[k][j]) {
          best[k][j] = v;
          from[k][j] = i;
        }
      }
    }
    const double sse = best[k][m - 1];
    if (sse == inf) break;
    // Reconstruct the k+1 segments.
    Piecewise pw;
    std::size_t outliers = 0;
    std::size_t end = m - 1;
    for (std::size_t kk = k + 1; kk-- > 0;) {
      const std::size_t start = kk == 0 ? 0 : from[kk][end];
      const SegFit& f = seg[start][end];
      pw.segments.insert(pw.segments.begin(), Segment{start, end, f.a, f.b});
      outliers += f.outliers;
      if (kk > 0) end = start - 1;
    }
    if (k > 0) {
      // Keep the extra segment if it cuts the misfit sharply, or if it turns
      // a whole segment's worth of outliers into fitted points (a knee so
      // large that the capped misfit no longer shows it).
      const double rms = std::sqrt(chosen_sse / static_cast<double>(m));
      const bool sharper = rms > opt.noise_floor && sse * opt.improvement <= chosen_sse;
      const bool explains = outliers + opt.min_points <= chosen_outliers;
      if (!sharper && !explains) break;
    }
    for (std::size_t s = 1; s < pw.segments.size(); ++s)
      pw.knees_B.push_back(bytes[pw.segments[s].first]);
    pw.rms_rel = std::sqrt(sse / static_cast<double>(m));
    chosen = std::move(pw);
    chosen_sse = sse;
    chosen_outliers = outliers;
  }
  return chosen;
}

}  // namespace cb::models
