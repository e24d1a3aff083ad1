// Which schedule rows the transport-wide alpha-beta-gamma fit (global_fit.hpp)
// uses, and why the others are left out of it.
//
// The model prices messages: its premise is that every rank has a core of
// its own while it sends, receives and reduces. Rows the harness measured
// with more ranks than cores (`oversubscribed` = 1) also time the OS
// scheduler: a round stretches by however long its ranks wait for a core,
// which grows with p and with the machine's load, so one (alpha, beta) over
// them trades one parameter against the other (the testbed's 8 hosts on 2
// cores: scripts/testbed/README.md). The fitted parameters are meant to be
// the transport's, so where a transport has enough rows with a core per rank
// the fit uses only those. Where it has not (every row oversubscribed), the
// fit uses them all and says so. Left-out rows are still predicted and graded
// with the fitted parameters, like every other row.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "models/results_csv.hpp"

namespace cb::models {

struct FitRows {
  std::vector<std::size_t> used;  // indices into the candidate rows, ascending
  std::size_t left_out = 0;       // candidates not in `used`
  std::string why;                // reason for the left-out rows ("" when none)
  std::string note;               // caveat about the rows used ("" when none)
};

// candidates: the transport's schedule rows that a fit could use (verified,
// non-zero model cost). min_rows: the fewest rows a global fit takes.
FitRows choose_fit_rows(const std::vector<const Measurement*>& candidates, std::size_t min_rows);

}  // namespace cb::models
