#include "models/crossover.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "algorithms/check.hpp"

namespace cb::models {

namespace {

// +1: a faster, -1: b faster, 0: tied.
int winner(const AlgorithmEntry& a, const AlgorithmEntry& b, const Scenario& s,
           const ModelParams& m, std::uint64_t count) {
  const double ta = predict_seconds(a, s, count, m);
  const double tb = predict_seconds(b, s, count, m);
  if (std::fabs(ta - tb) <= 1e-12 * std::max(ta, tb)) return 0;
  return ta < tb ? 1 : -1;
}

}  // namespace

std::vector<PredictedCrossing> predicted_crossings(const AlgorithmEntry& a, const AlgorithmEntry& b,
                                                   const Scenario& s, const ModelParams& m,
                                                   std::uint64_t min_count,
                                                   std::uint64_t max_count) {
  constexpr std::uint64_t kExhaustive = 4096;
  // Every count up to kExhaustive, then ~1.044x steps.
  const auto step = [](std::uint64_t c) {
    return c < kExhaustive ? c + 1 : static_cast<std::uint64_t>(c * 1.0442737824274138);
  };
  return walk_crossings([&](std::uint64_t c) { return winner(a, b, s, m, c); }, min_count,
                        max_count, step);
}

std::vector<MeasuredCrossing> measured_crossings(const std::vector<double>& bytes,
                                                 const std::vector<double>& t_a,
                                                 const std::vector<double>& t_b) {
  CB_CHECK(bytes.size() == t_a.size() && bytes.size() == t_b.size(), "ragged series");
  std::vector<MeasuredCrossing> out;
  std::size_t prev = bytes.size();  // index of the last untied size
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double d = std::log(t_a[i] / t_b[i]);
    if (d == 0) continue;
    if (prev < bytes.size()) {
      const double dp = std::log(t_a[prev] / t_b[prev]);
      if ((dp < 0) != (d < 0)) {
        const double x0 = std::log(bytes[prev]), x1 = std::log(bytes[i]);
        out.push_back({std::exp(x0 + dp / (dp - d) * (x1 - x0)), d < 0, bytes[prev], bytes[i]});
      }
    }
    prev = i;
  }
  return out;
}

}  // namespace cb::models

namespace cb::models {

bool significantly_faster(const TimeCI& a, const TimeCI& b, double min_effect) {
  return a.hi < b.lo && b.median > a.median * (1 + min_effect);
}

std::vector<MeasuredCrossing> separated_crossings(const std::vector<double>& bytes,
                                                  const std::vector<TimeCI>& a,
                                                  const std::vector<TimeCI>& b,
                                                  double min_effect) {
  CB_CHECK(bytes.size() == a.size() && bytes.size() == b.size(), "ragged series");
  // +1: a significantly faster, -1: b significantly faster, 0: tie.
  const auto side = [&](std::size_t i) {
    if (significantly_faster(a[i], b[i], min_effect)) return 1;
    if (significantly_faster(b[i], a[i], min_effect)) return -1;
    return 0;
  };
  std::vector<MeasuredCrossing> out;
  std::size_t prev = bytes.size();  // last separated size
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const int s = side(i);
    if (s == 0) continue;
    if (prev < bytes.size() && side(prev) != s) {
      // The last change of the medians' sign in [prev, i].
      std::size_t k = i;
      while (k > prev && (std::log(a[k - 1].median / b[k - 1].median) < 0) == (s > 0)) --k;
      const double d0 = std::log(a[k - 1].median / b[k - 1].median);
      const double d1 = std::log(a[k].median / b[k].median);
      const double x0 = std::log(bytes[k - 1]), x1 = std::log(bytes[k]);
      const double f = d0 == d1 ? 0.5 : std::clamp(d0 / (d0 - d1), 0.0, 1.0);
      out.push_back({std::exp(x0 + f * (x1 - x0)), s > 0, bytes[prev], bytes[i]});
    }
    prev = i;
  }
  return out;
}

std::string crossover_size_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024 && u < 3) {
    b /= 1024;
    ++u;
  }
  return fmt::format("{:.3g} {}", b, units[u]);
}

double three_digits(double x) {
  if (!(x > 0) || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, std::floor(std::log10(x)) - 2);
  return std::round(x / scale) * scale;
}

}  // namespace cb::models
