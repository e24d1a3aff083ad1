// The measured winner per size and its ranges: which algorithm to use at
// which message size, decided by the one rule of crossover.hpp
// (significantly_faster: CIs separate AND the margin exceeds the minimum
// effect). `collbench run`'s footer, `collbench fit`'s picks and
// `collbench recommend` all decide through here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/crossover.hpp"

namespace cb::models {

// One algorithm's time at one size (seconds; a prediction has lo = hi = median).
struct Contender {
  std::string algorithm;
  TimeCI time;
};

// The contenders measured at one size S (bytes, the results CSV's `bytes`).
struct SizeContenders {
  std::uint64_t bytes = 0;
  std::vector<Contender> contenders;
};

struct SizeWinner {
  std::uint64_t bytes = 0;
  std::string algorithm;               // the winner
  std::vector<std::string> tied_with;  // neither significantly faster nor slower than it
  double time_s = 0;                   // the winner's median
  // Fastest runner-up not tied: its median / the winner's - 1 (NaN if none).
  double margin = 0;
  // The library baseline's median at this size (mpi or nccl; NaN if not measured).
  double library_s = 0;
};

// The winner at each size, sizes ascending, each with at least one contender.
// At the smallest size the fastest median wins; from there on the winner
// keeps its place until an algorithm is significantly_faster than it (the
// fastest median among those that are takes over), so a range changes hands
// only where the CIs separate by more than min_effect: noise never flips it.
// Ties are the contenders not significantly faster or slower than the winner.
std::vector<SizeWinner> decide_winners(const std::vector<SizeContenders>& sizes,
                                       double min_effect = kMinEffect);

// A run of adjacent sizes with the same winner and the same tie set.
struct WinnerRange {
  std::uint64_t from_bytes = 0, to_bytes = 0;  // measured sizes, inclusive
  std::string algorithm;
  std::vector<std::string> tied_with;
  double margin = 0;              // smallest margin over the range (NaN if none)
  double speedup_vs_library = 0;  // smallest library / winner time (NaN if none)
};
std::vector<WinnerRange> winner_ranges(const std::vector<SizeWinner>& winners);

// One line for people, ranges merged by winner, ties after them, e.g.
// "naive <= 16 KiB · butterfly 32-64 KiB · rhd >= 128 KiB (ring tied >= 4 MiB)".
// Sizes in B, KiB, MiB (whole numbers where exact, else 3 significant
// digits, no exponent). When the full text exceeds max_columns
// (code points), the ties are given by name only ("(tied: ring, rhd)"),
// then left out (" (+ties)": the CSVs have them), then the end is cut with "...".
std::string winners_text(const std::vector<SizeWinner>& winners, std::size_t max_columns = 1000);

// The sizes where the winner changes: for each change, the last size of the
// old winner and the first of the new one (the interval the crossover lies
// in) and the two names.
struct WinnerChange {
  std::uint64_t last_old_bytes = 0, first_new_bytes = 0;
  std::string from, to;
};
std::vector<WinnerChange> winner_changes(const std::vector<SizeWinner>& winners);

// Number of code points of UTF-8 `text` (what a terminal shows as columns
// for the characters these lines use).
std::size_t text_columns(const std::string& text);

}  // namespace cb::models
