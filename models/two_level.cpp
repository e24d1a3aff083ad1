#include "models/two_level.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "algorithms/hierarchical/compose.hpp"
#include "algorithms/schedule_cost.hpp"
#include "models/node_links.hpp"

namespace cb::models {

namespace {

bool priced_by_level(const CollParams& params, const ModelParams& m) {
  return m.two_level() && params.ranks_per_node > 0 && params.p > 1 && params.count > 0;
}

// One side (sends or receives) of a rank's step under the port rule
// (node_links.hpp, ModelParams::network_gap_s): when the port is free and
// when its last message has arrived. With a gap g, k network messages sent
// at once cost alpha + (k-1) g + their bytes' beta instead of k alpha.
struct PortClock {
  double free = 0, done = 0;
  void serve(const PortRule& p, bool intra, double bytes) {
    free += p.hold(intra, bytes);
    done = std::max(done, free + p.after(intra));
  }
};

// One global step of the schedule set `all` (ranks 0..n-1, rank r on node
// r / k), every message at its level's alpha, beta, the network's messages
// also on their nodes' shared links (node_links.hpp), each `copies` times:
// that many identical groups run these schedules at once, one rank of each
// on every node (the lanes of hier2d:). Per rank: its port's sends and its
// receives each one after another, the later of the two or of its messages'
// link deliveries, then gamma * bytes it reduces; the step is its slowest rank.
double step_seconds(std::span<const Schedule> all, std::size_t i, int k, int copies,
                    const ModelParams& m) {
  const PortRule port{m.intra_alpha_s, m.intra_beta_s_per_B, m.alpha_s, m.beta_s_per_B,
                      m.network_gap_s};
  const auto bytes = [](const Schedule& s, std::size_t elements) {
    return static_cast<double>(elements) * static_cast<double>(element_size(s.dtype));
  };
  // The step's network messages seen from their senders and from their
  // receivers: the same transfers, listed twice so that each side reads its
  // own deliveries (the rule does not depend on their order).
  std::vector<NodeMessage> sent, received;
  for (const Schedule& s : all) {
    if (i >= s.steps.size()) continue;
    const Step& st = s.steps[i];
    for (const Send& x : st.sends)
      if (s.rank / k != x.peer / k)
        sent.insert(sent.end(), static_cast<std::size_t>(copies),
                    {s.rank / k, x.peer / k, 0, bytes(s, x.src.count)});
    for (const Recv& x : st.recvs)
      if (s.rank / k != x.peer / k)
        received.insert(received.end(), static_cast<std::size_t>(copies),
                        {x.peer / k, s.rank / k, 0, bytes(s, x.dst.count)});
  }
  const std::vector<double> sent_at = node_link_deliveries(sent, m.alpha_s, m.beta_s_per_B);
  const std::vector<double> received_at = node_link_deliveries(received, m.alpha_s, m.beta_s_per_B);
  std::size_t js = 0, jr = 0;  // the next rank's first message in sent, received
  double slowest = 0;
  for (const Schedule& s : all) {
    if (i >= s.steps.size()) continue;
    const Step& st = s.steps[i];
    PortClock out, in;
    double link = 0;
    std::size_t reduced = 0;
    for (const Send& x : st.sends) {
      out.serve(port, s.rank / k == x.peer / k, bytes(s, x.src.count));
      if (s.rank / k != x.peer / k) {
        link = std::max(link, sent_at[js]);
        js += static_cast<std::size_t>(copies);
      }
    }
    for (const Recv& x : st.recvs) {
      in.serve(port, s.rank / k == x.peer / k, bytes(s, x.dst.count));
      if (s.rank / k != x.peer / k) {
        link = std::max(link, received_at[jr]);
        jr += static_cast<std::size_t>(copies);
      }
      if (x.mode == RecvMode::reduce) reduced += x.dst.count;
    }
    for (const Local& x : st.locals)
      if (x.kind == LocalKind::reduce) reduced += x.dst.count;
    slowest = std::max(
        slowest, std::max(std::max(out.done, in.done), link) + m.gamma_s_per_B * bytes(s, reduced));
  }
  return slowest;
}

// The steps of `all` walked one after another (step_seconds).
double walk(std::span<const Schedule> all, int k, int copies, const ModelParams& m) {
  std::size_t steps = 0;
  for (const Schedule& s : all) steps = std::max(steps, s.steps.size());
  double total = 0;
  for (std::size_t i = 0; i < steps; ++i) total += step_seconds(all, i, k, copies, m);
  return total;
}

void check_walkable(std::string_view what, std::string_view name, int p) {
  if (p > kMaxLevelRanks)
    throw UsageError(fmt::format("{} on two levels is priced from every rank's schedule{}: {} "
                                 "is above {}",
                                 name, what, p, kMaxLevelRanks));
}

double walked_seconds(const AlgorithmEntry& algo, const CollParams& params, const ModelParams& m) {
  check_walkable("", algo.name, params.p);
  return walk(make_all_schedules(algo, params), params.ranks_per_node, 1, m);
}

// A composition: its intra-node phases' closed forms at the node's alpha,
// beta (their messages never reach a node link), its inter-node phases
// walked on one group's schedules, one rank per node, with the groups that
// run at once sharing each node's link.
double composed_seconds(const AlgorithmEntry& algo, const CollParams& params, const ModelParams& m) {
  const TwoLevelCost c = two_level_cost(*algo.composition, params);
  double total = m.intra_alpha_s * c.intra.alpha + m.intra_beta_s_per_B * c.intra.beta +
                 m.gamma_s_per_B * c.intra.gamma;
  for (const LevelPhase& ph : level_phases(*algo.composition, params)) {
    if (!ph.inter_node || ph.sub.p < 2 || ph.sub.count == 0) continue;
    check_walkable(fmt::format(" (its inter-node phase, {} nodes)", ph.sub.p), algo.name, ph.sub.p);
    total += walk(make_all_schedules(*ph.algo, ph.sub), 1, ph.groups, m);
  }
  return total;
}

}  // namespace

bool level_walks_schedules(const AlgorithmEntry& algo, const CollParams& params,
                           const ModelParams& m) {
  // One rank per node with a gap: the closed form's alpha per round is the
  // single port's, so its schedules are walked too.
  return priced_by_level(params, m) && algo.composition == nullptr &&
         (params.ranks_per_node > 1 || m.network_gap_s >= 0) && params.ranks_per_node < params.p;
}

double level_seconds(const AlgorithmEntry& algo, const CollParams& params, const ModelParams& m) {
  if (!priced_by_level(params, m)) return seconds(closed_form_cost(algo, params), m);
  // The simulator's exact fast path returns this for a composition; the
  // DES is held equal to it bit for bit (sim tests two_level_test.cpp).
  if (algo.composition != nullptr) return composed_seconds(algo, params, m);
  if (params.ranks_per_node >= params.p)  // one node: every message intra-node
    return seconds(closed_form_cost(algo, params),
                   ModelParams{m.intra_alpha_s, m.intra_beta_s_per_B, m.gamma_s_per_B});
  if (!level_walks_schedules(algo, params, m)) return seconds(closed_form_cost(algo, params), m);
  return walked_seconds(algo, params, m);
}

}  // namespace cb::models
