// Crossovers between two algorithms of a collective: the message sizes where
// the faster of the two changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "models/model_params.hpp"
#include "models/predict.hpp"

namespace cb::models {

struct PredictedCrossing {
  std::uint64_t count = 0;  // first count at which the new winner is faster
  bool a_faster_after = false;
};

// Every count c in (min_count, max_count] where the predicted faster of a and
// b differs from the faster at the previous count where they were not tied
// (ties within 1e-12 relative keep the previous winner). Exact (every count)
// up to 4096 elements, then a 2^(1/16) geometric grid refined by bisection:
// above 4096, crossings closer than one grid step (costs within a rounding
// of each other, flipping with the parity of the count) merge into one.
std::vector<PredictedCrossing> predicted_crossings(const AlgorithmEntry& a, const AlgorithmEntry& b,
                                                   const Scenario& s, const ModelParams& m,
                                                   std::uint64_t min_count,
                                                   std::uint64_t max_count);

struct MeasuredCrossing {
  double bytes = 0;  // interpolated linearly in log(size) on log(t_a / t_b)
  bool a_faster_after = false;
  // The crossing's interval (bytes): the last size where the old winner was
  // significantly faster and the first where the new one is (for
  // measured_crossings: the two sizes it was interpolated between).
  double lo_bytes = 0, hi_bytes = 0;
};

// bytes ascending (distinct), both times > 0 at each size. Raw medians, no
// noise rule: for predictions and noiseless series only.
std::vector<MeasuredCrossing> measured_crossings(const std::vector<double>& bytes,
                                                 const std::vector<double>& t_a,
                                                 const std::vector<double>& t_b);

// A measured time with the 95% confidence interval of its median (seconds).
struct TimeCI {
  double median = 0, lo = 0, hi = 0;
};

// The minimum effect size of the measured-winner rule: a difference smaller
// than this fraction of the faster median is treated as a tie even when the
// confidence intervals separate (systematic effects of a few percent, such as
// buffer placement, are not worth switching algorithms for).
inline constexpr double kMinEffect = 0.05;

// THE rule by which collbench calls one measured algorithm faster than
// another (run's footer, fit, recommend): the 95% CIs of the medians separate
// (a.hi < b.lo) AND b's median exceeds a's by more than min_effect (a
// fraction: 0.05 = 5%). Anything else is a tie.
bool significantly_faster(const TimeCI& a, const TimeCI& b, double min_effect = kMinEffect);

// The crossovers that the measurements support: only where one algorithm is
// significantly_faster on both sides (a at some size, b at a later size, or
// the reverse, with no significant size between). Sizes where it is not are
// ties and never make a crossover; the crossing lies at the last change of
// sign of the medians' log ratio between the two separated sizes,
// interpolated in log(size), and lo_bytes/hi_bytes are those two sizes.
// bytes ascending (distinct), all times > 0.
std::vector<MeasuredCrossing> separated_crossings(const std::vector<double>& bytes,
                                                  const std::vector<TimeCI>& a,
                                                  const std::vector<TimeCI>& b,
                                                  double min_effect = kMinEffect);

// Crossings of two predictions given as functions of the count, found on a
// geometric grid (ratio 2^(1/8), every count up to 64) over [min_count,
// max_count] and refined by bisection: the first count of each new winner.
// For models that are costly to evaluate (schedule-priced ones).
template <class Fa, class Fb>
std::vector<PredictedCrossing> grid_crossings(Fa ta, Fb tb, std::uint64_t min_count,
                                              std::uint64_t max_count);

// x rounded to 3 significant digits: how crossover sizes are reported (a
// crossover is an interpolated estimate; more digits would be noise).
double three_digits(double x);
// A crossover size for people: 3 significant digits in B, KiB, MiB or GiB
// ("1.23 KiB", "8.08 B").
std::string crossover_size_text(double bytes);

}  // namespace cb::models

#include "models/crossover_impl.hpp"
