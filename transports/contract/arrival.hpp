// Process arrival patterns (`--arrival`, docs/arrival.md): when each rank
// enters the collective, relative to an agreed start. Faraj, Patarasuk & Yuan
// ("A study of process arrival patterns for MPI collective operations", ICS
// 2007) measured skews of hundreds of µs to ms between the first and last
// rank on real clusters; a micro-benchmark that starts every iteration from a
// barrier never sees them.
//
// A pattern gives every rank of iteration i a delay in SECONDS (>= 0). The
// measured transports apply it with the window start (timing.hpp: each
// rank's agreed start is moved by its delay); the simulator and the model
// start each rank's clock at its delay (transports/sim/arrival_price.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cb {

class ArrivalPattern {
 public:
  enum class Kind { none, one_late, uniform, list, trace };

  // "none", "one-late:DELAY[:RANK]" (RANK default: the last), "uniform:MAX"
  // (each rank's delay uniform in [0, MAX) per iteration, drawn from `seed`,
  // the same on every rank and every run), "list:D0,D1,..." (one delay per
  // rank) or "trace:FILE" (CSV with header iteration,rank,delay_us: every
  // rank of every iteration 0..N-1 once; iteration i of a run takes row
  // i mod N). Durations take a unit: ns, us, ms or s ("0" alone is 0).
  // Throws UsageError (one line naming the bad part) otherwise.
  static ArrivalPattern parse(std::string_view text, std::uint64_t seed = 1);

  Kind kind() const { return kind_; }
  bool active() const { return kind_ != Kind::none; }
  // As given on the command line ("one-late:1ms"); "none" when inactive.
  const std::string& text() const { return text_; }
  // Whether delays differ between iterations (uniform, a trace of > 1 rows):
  // then a computed time needs several draws.
  bool varies() const;

  // Throws UsageError when the pattern cannot apply to p ranks: a one-late
  // rank >= p, a list of another length, a trace whose ranks are not 0..p-1.
  void check_ranks(int p) const;

  // Every rank's delay in SECONDS at iteration `iteration`, for p ranks
  // (check_ranks(p) passed).
  std::vector<double> delays(int p, std::uint64_t iteration) const;
  // The largest delay of any rank and iteration, SECONDS.
  double max_delay_s() const;

 private:
  Kind kind_ = Kind::none;
  std::string text_ = "none";
  double delay_s_ = 0;     // one-late: the delay; uniform: the bound
  int rank_ = -1;          // one-late: the late rank, -1 = the last
  std::uint64_t seed_ = 1;
  std::vector<double> list_s_;
  std::vector<std::vector<double>> trace_s_;  // [iteration][rank]
};

// A duration with a unit ("250us", "1.5ms", "0"), SECONDS; UsageError naming
// `what` for a negative value, a missing or unknown unit, or no number.
double parse_duration(std::string_view text, std::string_view what);

// What an iteration under a pattern costs, from each rank's arrival and
// completion (any common origin), SECONDS.
struct ArrivalTimes {
  double step_s = 0;        // first arrival to last completion: what the step pays
  double after_last_s = 0;  // last arrival to last completion: the collective's own cost
  // Mean over the ranks that arrived before the last one of (completion -
  // arrival): how long an early rank is held in the collective. nullopt when
  // every rank arrived at once.
  std::optional<double> early_in_s;
};
ArrivalTimes arrival_times(std::span<const double> arrival_s, std::span<const double> finish_s);

// Draws a computed (simulated, predicted) time under a varying pattern takes.
inline constexpr int kArrivalDraws = 10;

}  // namespace cb
