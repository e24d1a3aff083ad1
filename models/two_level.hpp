// Pricing a schedule on two levels: every message at the alpha, beta of the
// level it crosses (intra-node when both ranks are on one node of the
// layout CollParams::ranks_per_node, the network's otherwise), the network's
// bytes of a node's ranks sharing the node's link (node_links.hpp). The one
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
//  - a flat algorithm on one node (K >= p): the closed form at the
//    intra-node alpha, beta; with one rank per node (K = 1) and no gap
//    (m.network_gap_s < 0): at the network's;
//  - a flat algorithm on 2 or more nodes of K >= 2 ranks, or of one rank
//    with a gap: read off every rank's schedule. Per global step, each
//    rank's port serves its sends one after another, each holding it
//    alpha_l + bytes * beta_l (l the level of each message); with a gap g a
//    network message holds it g + bytes * beta and arrives alpha - g after
//    (LogGP's g: latencies overlap, so k messages sent at once cost
//    alpha + (k-1) g + their bytes' beta, not k alpha); the sends cost when
//    the last has arrived, its receives the same; the bytes
//    its node's ranks send to (receive from) other nodes in the step share
//    the node's link (node_links.hpp: each such message is delivered no
//    earlier than alpha after both node links carried it); the rank costs
//    the latest of its sends, its receives and its messages' link deliveries,
//    plus gamma * bytes it reduces, and the step its slowest rank (the
//    simulator's round-synchronous model). It needs every rank's schedule:
//    p at most kMaxLevelRanks, else UsageError;
//  - a hierarchical algorithm (AlgorithmEntry::composition): its intra-node
//    phases' closed forms at intra_alpha, intra_beta (two_level_cost), plus
//    each inter-node phase walked as above (the gap included) on one group's schedules (one
//    rank per node), the groups that run it at once (hier2d:'s K lanes)
//    sharing every node's link; gamma on both. Any layout it runs on (uneven
//    ones included); at most kMaxLevelRanks nodes, else UsageError.
// Throws what make_schedule throws for a layout the algorithm refuses.
double level_seconds(const AlgorithmEntry& algo, const CollParams& params, const ModelParams& m);

// The largest p of a flat algorithm's walk above, and the most nodes of a
// hierarchical one's (the same bound as schedule_model.hpp's
// kMaxPricedRanks: every rank's, or every node's, schedule is generated).
inline constexpr int kMaxLevelRanks = 1024;

// True when level_seconds reads every rank's schedule for (algo, params, m)
// (the last case above): what costs O(p x steps) instead of a closed form.
bool level_walks_schedules(const AlgorithmEntry& algo, const CollParams& params,
                           const ModelParams& m);

}  // namespace cb::models
