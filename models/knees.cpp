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
                   std::size_t j, double cap, std::size_t& work) {
  std::vector<std::vector<double>> basis;
  std::vector<double> y;
  basis.reserve(j - i + 1);
  y.reserve(j - i + 1);
  for (std::size_t q = i; q <= j; ++q) {
    basis.push_back({1.0, n[q]});
    y.push_back(t[q]);
  }
  work += j - i + 1;
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

// The optimal search of knees.hpp over every allowed breakpoint: O(m^2)
// segment fits of O(m) points each, so only for small m.
// Long on purpose: one dynamic programme over breakpoints; its tables would only be passed around.
Piecewise exact_knees(const std::vector<double>& bytes, const std::vector<double>& seconds,
                      const KneeOptions& opt) {
  const std::size_t m = bytes.size();
  const double inf = std::numeric_limits<double>::infinity();
  std::size_t work = 0;

  // seg[i][j]: best line over points i..j (only for allowed segments).
  std::vector<std::vector<SegFit>> seg(m, std::vector<SegFit>(m));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = i; j < m; ++j)
      if (j - i + 1 >= std::min(opt.min_points, m))
        seg[i][j] = fit_segment(bytes, seconds, i, j, opt.outlier_cap, work);
  // A boundary may fall between points i-1 and i only where the size changes.
  const auto can_start = [&](std::size_t i) { return i == 0 || bytes[i - 1] < bytes[i]; };

  // best[k][j]: min SSE of points 0..j in k+1 segments; from[k][j]: start of the last.
  std::vector<std::vector<double>> best;
  std::vector<std::vector<std::size_t>> from;
  Piecewise chosen;
  double chosen_sse = inf;
  std::size_t chosen_outliers = 0;
  bool skipped = false;  // the last k failed the test and was passed over
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
      // large that the capped misfit no longer shows it). With
      // opt.look_past_one, one more is tried past a segment that fails,
      // and both are kept only if the pair passes the same test.
      const double rms = std::sqrt(chosen_sse / static_cast<double>(m));
      const bool sharper = rms > opt.noise_floor && sse * opt.improvement <= chosen_sse;
      const bool explains = outliers + opt.min_points <= chosen_outliers;
      if (!sharper && !explains) {
        if (skipped || !opt.look_past_one) break;
        skipped = true;
        continue;
      }
      skipped = false;
    }
    for (std::size_t s = 1; s < pw.segments.size(); ++s)
      pw.knees_B.push_back(bytes[pw.segments[s].first]);
    pw.rms_rel = std::sqrt(sse / static_cast<double>(m));
    chosen = std::move(pw);
    chosen_sse = sse;
    chosen_outliers = outliers;
  }
  chosen.work_points = work;
  return chosen;
}

}  // namespace

Piecewise detect_knees(const std::vector<double>& bytes, const std::vector<double>& seconds,
                       const KneeOptions& opt) {
  const std::size_t m = bytes.size();
  CB_CHECK(m == seconds.size() && m >= 1, "{} sizes, {} times", m, seconds.size());
  for (std::size_t i = 1; i < m; ++i) CB_CHECK(bytes[i - 1] <= bytes[i], "sizes not sorted");
  CB_CHECK(opt.max_exact_points >= 1, "max_exact_points must be positive");
  if (m <= opt.max_exact_points) return exact_knees(bytes, seconds, opt);

  // Groups of sizes within equal steps of log(1 + bytes), as a sweep by a
  // constant factor would have measured them: a knee is then located to
  // within a factor of (largest/smallest)^(1/max_exact_points) in size, the
  // way the exact search locates it on a factor-2 sweep. Equal sizes fall in
  // one group, so a boundary still falls only where the size changes.
  const double lo = std::log1p(bytes.front());
  const double span = std::log1p(bytes.back()) - lo;
  const auto bucket = [&](double b) {
    if (span <= 0) return std::size_t{0};
    const double x = (std::log1p(b) - lo) / span * static_cast<double>(opt.max_exact_points);
    return std::min(opt.max_exact_points - 1, static_cast<std::size_t>(std::max(0.0, x)));
  };
  std::vector<std::size_t> first;  // index of each group's first point
  for (std::size_t i = 0; i < m; ++i)
    if (i == 0 || bucket(bytes[i]) != bucket(bytes[i - 1])) first.push_back(i);
  const std::size_t groups = first.size();
  // Each group is represented by its median size and median time: on
  // noise-free linear data that point lies on the line, and one wild time
  // cannot move it.
  std::vector<double> rep_n(groups), rep_t(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto lo = static_cast<std::ptrdiff_t>(first[g]);
    const auto hi = static_cast<std::ptrdiff_t>(g + 1 < groups ? first[g + 1] : m);
    rep_n[g] = median(std::vector<double>(bytes.begin() + lo, bytes.begin() + hi));
    rep_t[g] = median(std::vector<double>(seconds.begin() + lo, seconds.begin() + hi));
  }
  const Piecewise coarse = exact_knees(rep_n, rep_t, opt);

  // The segments found on the groups, refitted on all of their points.
  Piecewise out;
  std::size_t work = coarse.work_points;
  double sse = 0;
  for (const Segment& s : coarse.segments) {
    const std::size_t lo = first[s.first];
    const std::size_t hi = s.last + 1 < groups ? first[s.last + 1] - 1 : m - 1;
    const SegFit f = fit_segment(bytes, seconds, lo, hi, opt.outlier_cap, work);
    out.segments.push_back(Segment{lo, hi, f.a, f.b});
    sse += f.sse;
  }
  for (std::size_t s = 1; s < out.segments.size(); ++s)
    out.knees_B.push_back(bytes[out.segments[s].first]);
  out.rms_rel = std::sqrt(sse / static_cast<double>(m));
  out.work_points = work;
  return out;
}

}  // namespace cb::models
