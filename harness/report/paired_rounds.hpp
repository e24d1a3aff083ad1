// Two variants of one program (e.g. MPICH's own collectives and the same
// binary with libcollbench-pmpi.so preloaded) timed in interleaved rounds:
// the per-size ratio base time / new time, one per round, and its spread.
// Rounds alternate the variants so a drift of the machine reaches both; the
// ratio is taken within a round, where the two ran minutes apart at most.
// `collbench compare-rounds` prints it (harness/cli/cmd_compare_rounds.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cb {

// One timing: `time_us` (MICROSECONDS, e.g. OSU's average latency) of
// `variant` at message size `bytes` in round `round`.
struct RoundTime {
  int round = 0;
  std::string variant;
  std::uint64_t bytes = 0;
  double time_us = 0;
};

// Reads CSV text with a header holding round, variant, bytes and time_us (other
// columns ignored). Throws UsageError naming the file, line and value.
std::vector<RoundTime> parse_round_times(std::string_view text, const std::string& file);

enum class RatioVerdict { faster, slower, same };
std::string_view to_string(RatioVerdict v);

// One size. Ratio = base time / new time within a round (> 1: new is faster).
struct SizeRatio {
  std::uint64_t bytes = 0;
  std::size_t rounds = 0;           // rounds that timed both variants at this size
  double base_median_us = 0, new_median_us = 0;
  double ratio_median = 0, ratio_min = 0, ratio_max = 0;
  // The 95% CI of the median ratio (transports/contract/stats.hpp; [min, max] for
  // 5 or fewer rounds).
  double ratio_ci_lo = 0, ratio_ci_hi = 0;
  // faster: the CI lies above 1; slower: below 1; same: it holds 1.
  RatioVerdict verdict = RatioVerdict::same;
};

// Per size (ascending), over the rounds with both variants. Throws
// UsageError when a variant is absent, or no size has both.
std::vector<SizeRatio> paired_ratios(const std::vector<RoundTime>& times,
                                     const std::string& base, const std::string& next);

// The table as CSV: bytes,rounds,base_median_us,new_median_us,ratio_median,
// ratio_min,ratio_max,ratio_ci_lo,ratio_ci_hi,verdict.
std::string paired_ratios_csv(const std::vector<SizeRatio>& rows);

}  // namespace cb
