#include "algorithms/hierarchical/rooted.hpp"

#include <iterator>

#include "algorithms/common/binomial_tree.hpp"

namespace cb::hier {
namespace {

// Binomial reduce to rank 0, pipelined in --segment chunks as allreduce/tree
// (its first L + C - 1 rounds). Out of place, ranks with children first copy
// their input into the output, which accumulates.
void tree_reduce(const CollParams& params, ScheduleBuilder& b) {
  const int r = params.rank;
  const Region in{kInput, 0, params.count}, out{kOutput, 0, params.count};
  const binomial::Tree tr(params.p);
  const int chunks = binomial::chunks_of(params, params.count);
  binomial::record_segment(b, params, params.count, chunks);
  if (!params.in_place) {
    b.step();
    if (tr.children(r) > 0) b.copy(in, out);
  }
  b.for_steps(static_cast<std::uint64_t>(binomial::pipeline_rounds(tr, chunks)),
              [&](std::uint64_t t) {
                binomial::reduce_round(b, tr, r, static_cast<std::int64_t>(t), chunks, in, out);
              });
}

// Binomial broadcast from rank 0 of the output, pipelined as allreduce/tree's.
void tree_broadcast(const CollParams& params, ScheduleBuilder& b) {
  const Region out{kOutput, 0, params.count};
  const binomial::Tree tr(params.p);
  const int chunks = binomial::chunks_of(params, params.count);
  binomial::record_segment(b, params, params.count, chunks);
  b.for_steps(static_cast<std::uint64_t>(binomial::pipeline_rounds(tr, chunks)),
              [&](std::uint64_t t) {
                binomial::broadcast_round(b, tr, params.rank, static_cast<std::int64_t>(t),
                                          chunks, out);
              });
}

// Linear reduce: the root reduces every other rank's vector in one round
// (allreduce/ps's first half, with its local copy step out of place).
void ps_reduce(const CollParams& params, ScheduleBuilder& b) {
  const Region in{kInput, 0, params.count}, out{kOutput, 0, params.count};
  if (!params.in_place) {
    b.step();
    if (params.rank == 0) b.copy(in, out);
  }
  b.step();
  if (params.rank == 0) {
    for (int q = 1; q < params.p; ++q) b.recv_reduce(q, out);
  } else {
    b.send(0, in);
  }
}

// Linear broadcast: the root sends the vector to every other rank in one round.
void ps_broadcast(const CollParams& params, ScheduleBuilder& b) {
  const Region out{kOutput, 0, params.count};
  b.step();
  if (params.rank == 0) {
    for (int q = 1; q < params.p; ++q) b.send(q, out);
  } else {
    b.recv(0, out);
  }
}

// Binomial gather of one block per rank to rank 0 (common/binomial_tree.hpp):
// ranks with children first put their own block at its place in the output,
// where their subtree's blocks arrive.
void tree_gather(const CollParams& params, ScheduleBuilder& b) {
  const int r = params.rank;
  const std::size_t c = params.count;
  const binomial::Tree tr(params.p);
  const Region own{kInput, 0, c};
  b.step();
  if (tr.children(r) > 0) b.copy(own, binomial::blocks(kOutput, c, r, r + 1));
  b.for_steps(static_cast<std::uint64_t>(tr.L), [&](std::uint64_t k) {
    binomial::gather_round(b, tr, r, static_cast<int>(k), c, own, kOutput);
  });
}

// Binomial scatter from rank 0's input (blocks in rank order); a rank with
// children receives its subtree's blocks into its input and copies its own
// block out at the end.
void tree_scatter(const CollParams& params, ScheduleBuilder& b) {
  const int r = params.rank;
  const std::size_t c = params.count;
  const binomial::Tree tr(params.p);
  const Region out{kOutput, 0, c};
  b.for_steps(static_cast<std::uint64_t>(tr.L), [&](std::uint64_t j) {
    binomial::scatter_round(b, tr, r, static_cast<int>(j), c, kInput, out);
  });
  b.step();
  if (tr.children(r) > 0 || r == 0) b.copy(binomial::blocks(kInput, c, r, r + 1), out);
}

// Linear gather: every rank sends its block to rank 0 in one round.
void ps_gather(const CollParams& params, ScheduleBuilder& b) {
  const std::size_t c = params.count;
  b.step();
  if (params.rank == 0) {
    b.copy({kInput, 0, c}, {kOutput, 0, c});
    for (int q = 1; q < params.p; ++q) b.recv(q, binomial::blocks(kOutput, c, q, q + 1));
  } else {
    b.send(0, {kInput, 0, c});
  }
}

// Linear scatter: rank 0 sends block q to rank q in one round.
void ps_scatter(const CollParams& params, ScheduleBuilder& b) {
  const std::size_t c = params.count;
  b.step();
  if (params.rank == 0) {
    for (int q = 1; q < params.p; ++q) b.send(q, binomial::blocks(kInput, c, q, q + 1));
    b.copy({kInput, 0, c}, {kOutput, 0, c});
  } else {
    b.recv(0, {kOutput, 0, c});
  }
}

// The rooted phases are entries of their own (for names in messages and the
// cost walk) but not registry rows: only hierarchical algorithms run them.
constexpr AlgorithmEntry phase(Collective coll, std::string_view name, std::string_view summary,
                               GenerateFn generate, bool segmented) {
  AlgorithmEntry e{coll, name, summary, generate, nullptr};
  e.segmented = segmented;
  return e;
}

constexpr AlgorithmEntry kTreeGather =
    phase(Collective::allgather, "tree-gather", "binomial gather to rank 0", tree_gather, false);
constexpr AlgorithmEntry kTreeScatter = phase(Collective::reduce_scatter, "tree-scatter",
                                              "binomial scatter from rank 0", tree_scatter, false);
constexpr AlgorithmEntry kPsGather =
    phase(Collective::allgather, "ps-gather", "linear gather to rank 0", ps_gather, false);
constexpr AlgorithmEntry kPsScatter =
    phase(Collective::reduce_scatter, "ps-scatter", "linear scatter from rank 0", ps_scatter, false);

constexpr AlgorithmEntry kTreeReduce =
    phase(Collective::allreduce, "tree-reduce", "binomial reduce to rank 0", tree_reduce, true);
constexpr AlgorithmEntry kTreeBroadcast = phase(Collective::allreduce, "tree-broadcast",
                                                "binomial broadcast from rank 0", tree_broadcast, true);
constexpr AlgorithmEntry kPsReduce =
    phase(Collective::allreduce, "ps-reduce", "linear reduce to rank 0", ps_reduce, false);
constexpr AlgorithmEntry kPsBroadcast = phase(Collective::allreduce, "ps-broadcast",
                                              "linear broadcast from rank 0", ps_broadcast, false);

// The inner names, in kRootedInners order.
struct NamedPair {
  std::string_view inner;
  RootedPair pair;
};
constexpr NamedPair kPairs[] = {
    {kRootedInners[0], {&kTreeReduce, &kTreeBroadcast, &kTreeGather, &kTreeScatter}},
    {kRootedInners[1], {&kPsReduce, &kPsBroadcast, &kPsGather, &kPsScatter}},
};
static_assert(std::size(kPairs) == std::size(kRootedInners));

}  // namespace

RootedPair rooted_pair(std::string_view inner) {
  for (const NamedPair& p : kPairs)
    if (p.inner == inner) return p.pair;
  return {nullptr, nullptr, nullptr, nullptr};
}

}  // namespace cb::hier
