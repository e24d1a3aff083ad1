// The exact fast path: when the simulated time provably equals the
// closed-form cost, the simulator returns alpha*A + beta*B + gamma*C of
// closed_form_cost() instead of generating and simulating every message
// (O(1)-O(p) work instead of O(messages)).
//
// Why it is exact (README "Against the cost model"): with one flat network
// and no overhead, skew or noise, the round-synchronous model charges each
// step its slowest rank, which equals the step's cost when one rank is
// critical per step (every registered algorithm but pipelined dbtree); the
// asynchronous model equals it too except where different ranks are critical
// in consecutive steps without depending on each other (listed below), which
// the discrete-event simulation keeps. tests/sim/fast_path_test.cpp holds the
// fast path equal to the DES for every algorithm at p = 1..64 and sampled
// large p, and checks that each listed exception does beat the cost somewhere.
#pragma once

#include <string_view>

#include "algorithms/registry.hpp"
#include "transports/sim/net_params.hpp"

namespace cb::sim {

// Where the asynchronous simulation can be faster than the cost: the
// registry's cost_slack column (kCostSlack, and kCostSlackUnlessPow2 when p
// is not a power of two). Today allreduce/dbtree (the two trees' pipelined
// chunks keep different ranks busiest in successive steps) and
// reduce_scatter/butterfly (uneven blocks put the step maxima on ranks the
// next step's critical ranks do not wait for).
bool async_may_beat_cost(const AlgorithmEntry& algo, int p);
// Where the round-synchronous simulation can be: kCostSlack (dbtree,
// pipelined: no single rank attains every step's maxima).
bool rounds_may_beat_cost(const AlgorithmEntry& algo);

// True when simulating (algo, params) on `net` gives exactly the closed-form
// cost: no overhead, skew or noise, and either a homogeneous network (no
// topology) and an algorithm without slack in the chosen mode (above), or a
// two-level network (--ranks-per-node K dividing p) and a hierarchical
// algorithm composed on that layout whose phases' algorithms have no slack:
// its phases are pure intra- or inter-node, and closed_form_seconds prices
// each level with its own alpha, beta and the lanes' shared node links
// (tests/sim/two_level_test.cpp). Asynchronous, where lanes share the links,
// also only when each intra-node phase lets a node's ranks leave it together
// (else the first lane has the link alone for a while: the DES is faster).
bool cost_is_exact(const AlgorithmEntry& algo, const CollParams& params, const NetworkParams& net);

// Message events a discrete-event simulation of (algo, params) costs, about:
// closed-form rounds x ranks (an upper bound on messages; it also counts the
// rank-steps the engine walks). --max-events compares against it.
double estimated_events(const AlgorithmEntry& algo, const CollParams& params);

// Predicted wall seconds of simulate(algo, params, net, options) on one core
// of the dev machine: a weight for progress ETAs, not a promise.
double predicted_wall_s(const AlgorithmEntry& algo, const CollParams& params,
                        const NetworkParams& net, bool fast_path);

// alpha*A + beta*B + gamma*C of the closed form, seconds; on a two-level
// network models::level_seconds on the network's layout (the one pricing by
// level that predict, fit and recommend use): a hierarchical algorithm's
// intra-node phases' A and B priced with the intra-node alpha, beta and the
// inter-node ones with alpha, beta.
double closed_form_seconds(const AlgorithmEntry& algo, const CollParams& params,
                           const NetworkParams& net);

}  // namespace cb::sim
