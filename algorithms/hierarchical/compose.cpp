#include "algorithms/hierarchical/compose.hpp"

#include <fmt/format.h>

#include <deque>
#include <mutex>

#include "algorithms/check.hpp"
#include "algorithms/hierarchical/layout.hpp"
#include "algorithms/hierarchical/plan.hpp"
#include "algorithms/hierarchical/rooted.hpp"

namespace cb {
namespace {

using hier::CopyStep;
using hier::NodeLayout;
using hier::Phase;
using hier::Place;
using hier::Plan;

constexpr std::string_view kLeaderPrefix = "hier";
constexpr std::string_view kMultiPrefix = "hier2d";

// ---- phases on the layout ---------------------------------------------------

CollParams sub_params(const CollParams& params, const AlgorithmEntry* algo, std::size_t count,
                      bool in_place) {
  CollParams q = params;
  q.coll = algo->coll;
  q.count = count;
  q.in_place = in_place;
  if (q.op == ReduceOp::avg) q.op = ReduceOp::sum;  // the whole schedule divides once
  q.ranks_per_node = 0;
  return q;
}

// The ranks of this rank's node.
Phase intra(const AlgorithmEntry* algo, const CollParams& params, const NodeLayout& l,
            std::size_t count, bool in_place, Place in, Place out) {
  Phase ph;
  ph.algo = algo;
  ph.sub = sub_params(params, algo, count, in_place);
  const int j = l.node(params.rank);
  ph.sub.p = l.node_size(j);
  ph.sub.rank = l.local(params.rank);
  ph.member = true;
  ph.first = j * l.k;
  ph.input = in;
  ph.output = out;
  for (int q = 0; q < l.nodes; ++q) ph.group_sizes.push_back(l.node_size(q));
  return ph;
}

// Lane local(rank): the ranks with this rank's local index on every node.
Phase lane(const AlgorithmEntry* algo, const CollParams& params, const NodeLayout& l,
           std::size_t count, bool in_place, Place in, Place out) {
  Phase ph;
  ph.algo = algo;
  ph.sub = sub_params(params, algo, count, in_place);
  const auto lane_size = [&l](int i) { return i < l.last ? l.nodes : l.nodes - 1; };
  ph.sub.p = lane_size(l.local(params.rank));
  ph.sub.rank = l.node(params.rank);
  ph.member = true;
  ph.first = l.local(params.rank);
  ph.stride = l.k;
  ph.input = in;
  ph.output = out;
  for (int i = 0; i < l.k; ++i) ph.group_sizes.push_back(lane_size(i));
  ph.inter_node = true;
  return ph;
}

// The node leaders (local rank 0); the other ranks idle.
Phase leaders(const AlgorithmEntry* algo, const CollParams& params, const NodeLayout& l,
              std::size_t count, bool in_place, Place in, Place out) {
  Phase ph = lane(algo, params, l, count, in_place, in, out);
  ph.member = l.local(params.rank) == 0;
  ph.sub.p = l.nodes;
  ph.first = 0;
  ph.group_sizes = {l.nodes};
  return ph;
}

constexpr BufferId scratch(int k) { return static_cast<BufferId>(kScratch0 + k); }

std::size_t sz(int x) { return static_cast<std::size_t>(x); }

// Copies of the blocks of `from` (rows x cols blocks of c elements, row-major)
// into `to` in column-major order: block (a, b) -> block (b, a).
CopyStep transpose(BufferId from, BufferId to, int rows, int cols, std::size_t c) {
  CopyStep copies;
  for (int a = 0; a < rows; ++a)
    for (int b = 0; b < cols; ++b)
      copies.push_back({{from, (sz(a) * sz(cols) + sz(b)) * c, c},
                        {to, (sz(b) * sz(rows) + sz(a)) * c, c}});
  return copies;
}

// ---- the plans ------------------------------------------------------------------

Plan allreduce_leader(const Composition& c, const CollParams& params, const NodeLayout& l) {
  const std::size_t n = params.count;
  Plan plan;
  plan.items.push_back(intra(c.inner_first, params, l, n, params.in_place, {kInput, 0},
                             {kOutput, 0}));
  plan.items.push_back(leaders(c.outer, params, l, n, true, {kOutput, 0}, {kOutput, 0}));
  plan.items.push_back(intra(c.inner_last, params, l, n, true, {kOutput, 0}, {kOutput, 0}));
  return plan;
}

// Gather the node's blocks to its leader (into the node's part of the
// output), all-gather those parts among the leaders, broadcast the whole.
Plan allgather_leader(const Composition& c, const CollParams& params, const NodeLayout& l) {
  const std::size_t cnt = params.count, k = sz(l.k), r = sz(params.rank);
  // In place the input view is the rank's own block of the output.
  const Place own = params.in_place ? Place{kOutput, r * cnt} : Place{kInput, 0};
  Plan plan;
  plan.items.push_back(intra(c.inner_first, params, l, cnt, false, own,
                             {kOutput, sz(l.node(params.rank)) * k * cnt}));
  plan.items.push_back(leaders(c.outer, params, l, k * cnt, true, {kOutput, 0}, {kOutput, 0}));
  plan.items.push_back(intra(c.inner_last, params, l, sz(l.p) * cnt, true, {kOutput, 0},
                             {kOutput, 0}));
  return plan;
}

// Reduce the whole input to the node's leader, reduce-scatter the nodes'
// parts among the leaders, scatter each node's part from its leader.
Plan reduce_scatter_leader(const Composition& c, const CollParams& params, const NodeLayout& l) {
  const std::size_t cnt = params.count, k = sz(l.k);
  Plan plan;
  plan.scratch = {sz(l.p) * cnt, k * cnt};
  plan.items.push_back(intra(c.inner_first, params, l, sz(l.p) * cnt, false, {kInput, 0},
                             {scratch(0), 0}));
  plan.items.push_back(leaders(c.outer, params, l, k * cnt, false, {scratch(0), 0},
                               {scratch(1), 0}));
  plan.items.push_back(intra(c.inner_last, params, l, cnt, false, {scratch(1), 0}, {kOutput, 0}));
  return plan;
}

Plan allreduce_2d(const Composition& c, const CollParams& params, const NodeLayout& l) {
  const std::size_t n = params.count, k = sz(l.k);
  const std::size_t block = (n + k - 1) / k;  // lane i owns elements [i*block, +block)
  const std::size_t i = sz(l.local(params.rank));
  // When k does not divide n, the phases run on a copy padded to k*block
  // elements; the padding is filled with input values so that nothing reads
  // undefined memory, and never reaches the output.
  const bool padded = block * k != n;
  Plan plan;
  Place work{kOutput, 0};
  if (padded) {
    plan.scratch = {block * k};
    work = {scratch(0), 0};
    CopyStep fill{{{kInput, 0, n}, {scratch(0), 0, n}}};
    for (std::size_t off = n; off < block * k;) {
      const std::size_t m = std::min(n, block * k - off);
      fill.push_back({{kInput, 0, m}, {scratch(0), off, m}});
      off += m;
    }
    plan.items.push_back(std::move(fill));
  }
  const bool rs_in_place = padded || params.in_place;
  plan.items.push_back(intra(c.inner_first, params, l, block, rs_in_place, {kInput, 0},
                             rs_in_place ? work : Place{kOutput, i * block}));
  plan.items.push_back(lane(c.outer, params, l, block, true, {},
                            {work.buf, work.base + i * block}));
  plan.items.push_back(intra(c.inner_last, params, l, block, true, {}, work));
  if (padded) plan.items.push_back(CopyStep{{{scratch(0), 0, n}, {kOutput, 0, n}}});
  return plan;
}

Plan reduce_scatter_2d(const Composition& c, const CollParams& params, const NodeLayout& l) {
  const std::size_t cnt = params.count, nodes = sz(l.nodes);
  Plan plan;
  plan.scratch = {sz(l.p) * cnt, nodes * cnt};
  // Input block j*K + i (for node j, lane i) -> lane-major position i*N + j.
  plan.items.push_back(transpose(kInput, scratch(0), l.nodes, l.k, cnt));
  plan.items.push_back(intra(c.inner_first, params, l, nodes * cnt, false, {scratch(0), 0},
                             {scratch(1), 0}));
  plan.items.push_back(lane(c.outer, params, l, cnt, false, {scratch(1), 0}, {kOutput, 0}));
  return plan;
}

Plan allgather_2d(const Composition& c, const CollParams& params, const NodeLayout& l) {
  const std::size_t cnt = params.count, nodes = sz(l.nodes);
  Plan plan;
  plan.scratch = {nodes * cnt, sz(l.p) * cnt};
  plan.items.push_back(lane(c.outer, params, l, cnt, false, {kInput, 0}, {scratch(0), 0}));
  plan.items.push_back(intra(c.inner_first, params, l, nodes * cnt, false, {scratch(0), 0},
                             {scratch(1), 0}));
  // Lane-major position i*N + j -> rank order j*K + i.
  plan.items.push_back(transpose(scratch(1), kOutput, l.k, l.nodes, cnt));
  return plan;
}

Plan alltoall_2d(const Composition& c, const CollParams& params, const NodeLayout& l) {
  const std::size_t cnt = params.count, nodes = sz(l.nodes), k = sz(l.k);
  const std::size_t total = sz(l.p) * cnt;
  Plan plan;
  plan.scratch = {total, total, total};
  // By destination (node j, lane i) -> grouped by destination lane: i*N + j.
  plan.items.push_back(transpose(kInput, scratch(0), l.nodes, l.k, cnt));
  // After it, block i2*N + j holds what node-mate i2 sends to (j, my lane).
  plan.items.push_back(intra(c.inner_first, params, l, nodes * cnt, false, {scratch(0), 0},
                             {scratch(1), 0}));
  // Regroup by destination node: j*K + i2.
  plan.items.push_back(transpose(scratch(1), scratch(2), l.k, l.nodes, cnt));
  plan.items.push_back(lane(c.outer, params, l, k * cnt, false, {scratch(2), 0}, {kOutput, 0}));
  return plan;
}

std::string_view form_prefix(HierForm f) { return f == HierForm::leader ? kLeaderPrefix : kMultiPrefix; }

Plan make_plan(const Composition& c, const CollParams& params) {
  const NodeLayout l = hier::node_layout(params);
  if (c.form == HierForm::leader && params.coll == Collective::allreduce)
    return allreduce_leader(c, params, l);
  if (!l.uniform())
    throw UsageError(fmt::format(
        "{} needs the same number of ranks on every node: {} ranks at {} per node leave {} on "
        "the last node (hier: all-reduce and the flat algorithms accept any layout)",
        c.name, l.p, l.k, l.last));
  if (c.form == HierForm::leader)
    return params.coll == Collective::allgather ? allgather_leader(c, params, l)
                                                : reduce_scatter_leader(c, params, l);
  switch (params.coll) {
    case Collective::allreduce: return allreduce_2d(c, params, l);
    case Collective::reduce_scatter: return reduce_scatter_2d(c, params, l);
    case Collective::allgather: return allgather_2d(c, params, l);
    case Collective::alltoall: return alltoall_2d(c, params, l);
  }
  throw UsageError("unknown collective");
}

// ---- names ----------------------------------------------------------------------

// The sub-collectives each form's phases run, by collective.
struct FormShape {
  Collective inner_first, inner_last, outer;
};
FormShape shape(HierForm form, Collective coll) {
  if (form == HierForm::multi_leader && coll == Collective::allreduce)
    return {Collective::reduce_scatter, Collective::allgather, Collective::allreduce};
  return {coll, coll, coll};
}

bool form_defined(HierForm form, Collective coll) {
  return form == HierForm::multi_leader || coll != Collective::alltoall;
}

std::vector<std::string_view> inner_names(HierForm form, Collective coll) {
  std::vector<std::string_view> out;
  if (form == HierForm::leader) {
    for (std::string_view n : hier::kRootedInners) out.push_back(n);
    return out;
  }
  const FormShape s = shape(form, coll);
  for (const AlgorithmEntry& e : algorithms_for(s.inner_first)) {
    bool both = false;
    for (const AlgorithmEntry& f : algorithms_for(s.inner_last)) both = both || f.name == e.name;
    if (both) out.push_back(e.name);
  }
  return out;
}

std::string joined(const std::vector<std::string_view>& names, std::string_view sep) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += sep;
    out += n;
  }
  return out;
}

std::string summary_of(HierForm form, Collective coll, std::string_view inner, std::string_view outer) {
  if (form == HierForm::leader) {
    switch (coll) {
      case Collective::reduce_scatter:
        return fmt::format("one leader per node: {} reduce in the node, {} reduce-scatter among "
                           "the leaders, {} scatter in the node", inner, outer, inner);
      case Collective::allgather:
        return fmt::format("one leader per node: {} gather in the node, {} all-gather among the "
                           "leaders, {} broadcast in the node", inner, outer, inner);
      default:
        return fmt::format("one leader per node: {} reduce in the node, {} all-reduce among the "
                           "leaders, {} broadcast in the node", inner, outer, inner);
    }
  }
  switch (coll) {
    case Collective::allreduce:
      return fmt::format("multi-leader: {} reduce-scatter in the node, {} all-reduce per lane, "
                         "{} all-gather in the node", inner, outer, inner);
    case Collective::reduce_scatter:
      return fmt::format("multi-leader: {} reduce-scatter in the node, {} reduce-scatter per lane",
                         inner, outer);
    case Collective::allgather:
      return fmt::format("multi-leader: {} all-gather per lane, {} all-gather in the node", outer,
                         inner);
    case Collective::alltoall:
      return fmt::format("multi-leader: {} all-to-all in the node, {} all-to-all per lane", inner,
                         outer);
  }
  return {};
}

struct Interned {
  std::string name;
  std::string summary;
  Composition comp;
  AlgorithmEntry entry;
};

std::mutex interned_mutex;
std::deque<Interned> interned;  // deque: entries never move

const AlgorithmEntry& intern(Collective coll, std::string_view name, HierForm form,
                             std::string_view inner, std::string_view outer) {
  std::lock_guard lock(interned_mutex);
  for (const Interned& x : interned)
    if (x.entry.coll == coll && x.name == name) return x.entry;
  Composition comp;
  comp.form = form;
  const FormShape s = shape(form, coll);
  if (form == HierForm::leader) {
    const hier::RootedPair pair = hier::rooted_pair(inner);
    comp.inner_first = coll == Collective::allgather ? pair.gather : pair.reduce;
    comp.inner_last = coll == Collective::reduce_scatter ? pair.scatter : pair.broadcast;
  } else {
    comp.inner_first = &find_algorithm(s.inner_first, inner);
    comp.inner_last = &find_algorithm(s.inner_last, inner);
  }
  comp.outer = &find_algorithm(s.outer, outer);
  Interned& x = interned.emplace_back();
  x.name = std::string(name);
  x.summary = summary_of(form, coll, inner, outer);
  x.comp = comp;
  x.comp.name = x.name;
  const bool segmented = comp.inner_first->segmented || comp.inner_last->segmented ||
                         comp.outer->segmented;
  x.entry = AlgorithmEntry{coll, x.name, x.summary, nullptr, nullptr};
  x.entry.segmented = segmented;
  x.entry.composition = &x.comp;
  return x.entry;
}

}  // namespace

bool is_composite_name(std::string_view name) {
  const auto colon = name.find(':');
  return colon != std::string_view::npos && name.substr(0, colon).starts_with(kLeaderPrefix);
}

const AlgorithmEntry& find_composite(Collective coll, std::string_view name) {
  const auto colon = name.find(':');
  const auto slash = name.find('/', colon);
  const std::string_view prefix = name.substr(0, colon);
  const auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("algorithm '{}' for {}: {}", name, to_string(coll), why));
  };
  HierForm form;
  if (prefix == kLeaderPrefix)
    form = HierForm::leader;
  else if (prefix == kMultiPrefix)
    form = HierForm::multi_leader;
  else
    throw bad(fmt::format("unknown hierarchical form '{}' (valid: {}, {})", prefix, kLeaderPrefix,
                          kMultiPrefix));
  if (slash == std::string_view::npos)
    throw bad(fmt::format("expected {}:INNER/OUTER", prefix));
  if (!form_defined(form, coll))
    throw bad(fmt::format("{}: is not defined for {}; use {}:INNER/OUTER", prefix,
                          to_string(coll), kMultiPrefix));
  const std::string_view inner = name.substr(colon + 1, slash - colon - 1);
  const std::string_view outer = name.substr(slash + 1);
  const auto inners = inner_names(form, coll);
  if (std::find(inners.begin(), inners.end(), inner) == inners.end())
    throw bad(fmt::format("inner algorithm '{}' is not accepted (valid: {})", inner,
                          joined(inners, ", ")));
  if (is_composite_name(outer))
    throw bad(fmt::format("outer algorithm '{}' is itself hierarchical", outer));
  try {
    return intern(coll, name, form, inner, outer);
  } catch (const UsageError& e) {
    throw bad(fmt::format("outer: {}", e.what()));
  }
}

std::vector<std::string> composite_forms(Collective coll) {
  std::vector<std::string> out;
  for (HierForm form : {HierForm::leader, HierForm::multi_leader}) {
    if (!form_defined(form, coll)) continue;
    std::vector<std::string_view> outers;
    for (const AlgorithmEntry& e : algorithms_for(shape(form, coll).outer)) outers.push_back(e.name);
    out.push_back(fmt::format("{}:INNER/OUTER  {}; INNER {}, OUTER {}", form_prefix(form),
                              summary_of(form, coll, "INNER", "OUTER"),
                              joined(inner_names(form, coll), "|"), joined(outers, "|")));
  }
  return out;
}

std::vector<std::string> all_composite_names(Collective coll) {
  std::vector<std::string> out;
  for (HierForm form : {HierForm::leader, HierForm::multi_leader}) {
    if (!form_defined(form, coll)) continue;
    for (std::string_view inner : inner_names(form, coll))
      for (const AlgorithmEntry& e : algorithms_for(shape(form, coll).outer))
        out.push_back(fmt::format("{}:{}/{}", form_prefix(form), inner, e.name));
  }
  return out;
}

std::string hierarchy_note(const AlgorithmEntry& algo, const CollParams& params) {
  if (algo.composition == nullptr || params.p < 2) return {};
  const NodeLayout l = hier::node_layout(params);
  if (!l.uniform()) (void)make_plan(*algo.composition, params);  // throws the refusal, if any
  if (l.nodes == 1)
    return fmt::format("note: {} on one node ({} ranks): the inter-node phase is empty, so it "
                       "runs as its intra-node phases alone",
                       algo.name, l.p);
  if (l.k == 1)
    return fmt::format("note: {} with one rank per node: the intra-node phases are empty, so it "
                       "runs as its inter-node phase {} alone",
                       algo.name, algo.composition->outer->name);
  return {};
}

void generate_composite(const Composition& c, const CollParams& params, ScheduleBuilder& b) {
  hier::emit_plan(make_plan(c, params), b);
}

TwoLevelCost two_level_cost(const Composition& c, const CollParams& params) {
  CollParams q = params;
  q.rank = 0;
  const hier::LevelCost lc = hier::plan_cost_by_level(make_plan(c, q));
  return {lc.intra, lc.inter};
}

std::vector<PhaseAlgorithm> phase_algorithms(const Composition& c, const CollParams& params) {
  CollParams q = params;
  q.rank = 0;
  std::vector<PhaseAlgorithm> out;
  for (const auto& item : make_plan(c, q).items)
    if (const auto* ph = std::get_if<Phase>(&item)) {
      const AlgorithmEntry* a = ph->algo;
      if (a == c.inner_first || a == c.inner_last) {
        if (c.form == HierForm::leader)  // the rooted halves of tree / ps
          a = &find_algorithm(a->coll, a->name.substr(0, a->name.find('-')));
      }
      for (int size : ph->group_sizes) out.push_back({a, size});
    }
  return out;
}

std::vector<LevelPhase> level_phases(const Composition& c, const CollParams& params) {
  CollParams q = params;
  q.rank = 0;
  std::vector<LevelPhase> out;
  for (const auto& item : make_plan(c, q).items)
    if (const auto* ph = std::get_if<Phase>(&item)) {
      // The groups of an inter-node phase that has several (the lanes) are
      // all of one size on the uniform layouts hier2d: runs on.
      if (ph->inter_node)
        for (int size : ph->group_sizes)
          CB_CHECK(size == ph->sub.p, "{}: inter-node groups of {} and {} ranks", c.name, size,
                   ph->sub.p);
      CollParams sub = ph->sub;
      sub.rank = 0;
      out.push_back({ph->algo, sub, ph->inter_node, static_cast<int>(ph->group_sizes.size())});
    }
  return out;
}

Cost composite_cost(const Composition& c, const CollParams& params) {
  CollParams q = params;
  q.rank = 0;
  return hier::plan_cost(make_plan(c, q));
}

}  // namespace cb
