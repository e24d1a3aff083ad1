// Pricing a schedule on two levels: every message at the alpha, beta of the
// level it crosses (intra-node when both ranks are on one node of the
// layout CollParams::ranks_per_node, the network's otherwise). The one
// function predict, fit, recommend and the simulator's exact fast path (and
// so map) all price with, so they agree by construction; the simulator's
// discrete-event model agrees with it exactly where transports/sim/tests/
// two_level_test.cpp says (every hierarchical algorithm on its own layout,
// both timing models; the flat algorithms it names in round-synchronous mode).
#pragma once

#include "algorithms/params.hpp"
#include "algorithms/registry.hpp"
#include "models/model_params.hpp"

namespace cb::models {

// Seconds of `algo` at `params` under `m` (SI units: seconds, bytes):
//  - m one level (m.two_level() false), no layout (params.ranks_per_node 0),
//    p < 2 or count 0: the closed form at alpha, beta, gamma (seconds());
//  - a hierarchical algorithm (AlgorithmEntry::composition): its phases'
//    closed forms split by level (two_level_cost), the intra-node ones at
//    intra_alpha, intra_beta and the inter-node ones at alpha, beta, with
//    gamma on both, for any layout it runs on (uneven ones included);
//  - a flat algorithm on one node (K >= p): the closed form at the
//    intra-node alpha, beta; with one rank per node (K = 1): at the network's;
//  - a flat algorithm on 2 or more nodes of K >= 2 ranks: read off every
//    rank's schedule. Per global step, each rank's sends cost the sum of
//    alpha_l + bytes * beta_l over them (l the level of each message: its
//    port serves them one after another), its receives the same, the rank
//    max(sends, receives) + gamma * bytes it reduces, and the step its
//    slowest rank (the simulator's round-synchronous model of one port per
//    direction). It needs every rank's schedule: p at most kMaxLevelRanks,
//    else UsageError.
// Throws what make_schedule throws for a layout the algorithm refuses.
double level_seconds(const AlgorithmEntry& algo, const CollParams& params, const ModelParams& m);

// The largest p of a flat algorithm's walk above (the same bound as
// schedule_model.hpp's kMaxPricedRanks: every rank's schedule is generated).
inline constexpr int kMaxLevelRanks = 1024;

// True when level_seconds reads every rank's schedule for (algo, params, m)
// (the last case above): what costs O(p x steps) instead of a closed form.
bool level_walks_schedules(const AlgorithmEntry& algo, const CollParams& params,
                           const ModelParams& m);

}  // namespace cb::models
