// On a two-level layout, per message size: the fastest hierarchical
// schedule, the fastest flat one and the library's fastest own collective
// (its default and any MPICH algorithms forced by CVARs, each a
// library_setting), with the ratios a user compares them by. Issue #29 asks
// for "the best hierarchical schedule vs MPICH's best as a ratio per size
// with its spread"; `collbench fit` writes it as families.csv, the two-level
// report renders it.
#pragma once

#include <string>
#include <vector>

#include "models/results_csv.hpp"

namespace cb::models {

// families.csv, one row per (transport, collective, datatype, op, placement,
// ranks, ranks_per_node, bytes) of `rows` on two levels (2 or more nodes of
// 2 or more ranks) where at least two of the three contenders were measured.
// Columns: those keys, then per contender (hier_, flat_, library_) its
// algorithm (the library's: the algorithm its library_setting forces, the
// value of each ..._ALGORITHM= CVAR, e.g. "smp"; "default" where none), its
// median and 95% CI (seconds: _s, _lo_s, _hi_s; empty where not measured);
// hier_over_library and flat_over_library (median / median: below 1 the
// schedule is faster) with their spreads _lo and _hi (the CIs' far ends:
// schedule low / library high, schedule high / library low); hier_over_flat
// likewise; faster (of hierarchical, flat, library: the fastest median, or
// "tie" when it is not significantly_faster than the runner-up, the one rule
// of crossover.hpp). Empty text (no header) when no row is on two levels.
std::string families_csv(const std::vector<const Measurement*>& rows);

}  // namespace cb::models
