#include "algorithms/hierarchical/plan.hpp"

#include <algorithm>
#include <set>

#include "algorithms/check.hpp"
#include "algorithms/schedule_cost.hpp"

namespace cb::hier {
namespace {

CollParams sized(CollParams sub, int p, int rank) {
  sub.p = p;
  sub.rank = rank;
  return sub;
}

std::set<int> distinct_sizes(const Phase& ph) {
  return {ph.group_sizes.begin(), ph.group_sizes.end()};
}

// Steps of the phase: its longest group's (every rank of one group has the
// same number of steps, schedule.hpp).
std::uint64_t phase_length(const Phase& ph) {
  std::uint64_t len = 0;
  for (int size : distinct_sizes(ph))
    len = std::max(len, make_schedule(*ph.algo, sized(ph.sub, size, 0), 0, 0).total_steps);
  return len;
}

class RegionMap {
 public:
  RegionMap(const Phase& ph, std::vector<BufferId> scratch) : ph_(ph), scratch_(std::move(scratch)) {
    if (ph.sub.in_place)
      lay_ = in_place_layout(ph.sub.coll, ph.sub.p, ph.sub.rank, ph.sub.count);
  }
  Region operator()(const Region& r) const {
    if (r.buf == kInput) {
      if (ph_.sub.in_place) return {ph_.output.buf, ph_.output.base + lay_.input_offset + r.offset, r.count};
      return {ph_.input.buf, ph_.input.base + r.offset, r.count};
    }
    if (r.buf == kOutput) {
      if (ph_.sub.in_place)
        return {ph_.output.buf, ph_.output.base + lay_.output_offset + r.offset, r.count};
      return {ph_.output.buf, ph_.output.base + r.offset, r.count};
    }
    return {scratch_.at(r.buf - kScratch0), r.offset, r.count};
  }

 private:
  const Phase& ph_;
  std::vector<BufferId> scratch_;
  InPlaceLayout lay_;
};

void emit_phase(const Phase& ph, ScheduleBuilder& b) {
  const std::uint64_t len = phase_length(ph);
  if (!ph.member) {
    b.for_steps(len, [](std::uint64_t) {});
    return;
  }
  // Build only the part of the sub-schedule that falls in b's window.
  const std::uint64_t start = b.steps_started();
  const std::uint64_t wb = b.window_begin() > start ? b.window_begin() - start : 0;
  std::uint64_t we = ScheduleBuilder::kNoEnd;
  if (b.window_end() != ScheduleBuilder::kNoEnd)
    we = std::max(wb, b.window_end() > start ? b.window_end() - start : 0);
  const Schedule s = make_schedule(*ph.algo, ph.sub, wb, we);
  CB_CHECK(s.total_steps <= len, "{} phase: {} steps in a phase of {}", ph.algo->name,
           s.total_steps, len);
  std::vector<BufferId> ids;
  for (std::size_t count : s.scratch_counts) ids.push_back(b.add_scratch(count));
  const RegionMap map(ph, std::move(ids));
  const auto peer = [&ph](int q) { return ph.first + q * ph.stride; };
  b.for_steps(len, [&](std::uint64_t k) {
    if (k < s.first_step || k - s.first_step >= s.steps.size()) return;
    const Step& st = s.steps[static_cast<std::size_t>(k - s.first_step)];
    for (const Send& x : st.sends) b.send(peer(x.peer), map(x.src));
    for (const Recv& x : st.recvs) {
      if (x.mode == RecvMode::reduce)
        b.recv_reduce(peer(x.peer), map(x.dst));
      else
        b.recv(peer(x.peer), map(x.dst));
    }
    for (const Local& x : st.locals) {
      CB_CHECK(x.kind != LocalKind::average, "{} phase: a sub-schedule must not average",
               ph.algo->name);
      if (x.kind == LocalKind::copy)
        b.copy(map(x.src), map(x.dst));
      else
        b.reduce(map(x.src), map(x.dst));
    }
  });
}

Cost add(Cost a, const Cost& b) {
  a.alpha += b.alpha;
  a.beta += b.beta;
  a.gamma += b.gamma;
  return a;
}

Cost phase_cost(const Phase& ph) {
  const std::set<int> sizes = distinct_sizes(ph);
  if (sizes.size() == 1) {
    const CollParams q = sized(ph.sub, *sizes.begin(), 0);
    if (ph.algo->cost != nullptr || q.p == 1 || q.count == 0) return closed_form_cost(*ph.algo, q);
    return schedule_cost(make_all_schedules(*ph.algo, q));
  }
  // Groups of different sizes share the phase's rounds: per round, the
  // largest of their per-round costs (params.hpp's convention).
  std::vector<Cost> worst;
  for (int size : sizes) {
    const std::vector<Cost> per = per_step_cost(make_all_schedules(*ph.algo, sized(ph.sub, size, 0)));
    if (per.size() > worst.size()) worst.resize(per.size());
    for (std::size_t t = 0; t < per.size(); ++t) {
      worst[t].alpha = std::max(worst[t].alpha, per[t].alpha);
      worst[t].beta = std::max(worst[t].beta, per[t].beta);
      worst[t].gamma = std::max(worst[t].gamma, per[t].gamma);
    }
  }
  Cost total;
  for (const Cost& c : worst) total = add(total, c);
  return total;
}

}  // namespace

void emit_plan(const Plan& plan, ScheduleBuilder& b) {
  for (std::size_t k = 0; k < plan.scratch.size(); ++k) {
    const BufferId id = b.add_scratch(plan.scratch[k]);
    CB_CHECK(id == kScratch0 + k, "plan scratch {} got buffer {}", k, id);
  }
  for (const auto& item : plan.items) {
    if (const auto* copies = std::get_if<CopyStep>(&item)) {
      b.step();
      for (const auto& [src, dst] : *copies) b.copy(src, dst);
    } else {
      emit_phase(std::get<Phase>(item), b);
    }
  }
}

LevelCost plan_cost_by_level(const Plan& plan) {
  LevelCost total;
  for (const auto& item : plan.items)
    if (const auto* ph = std::get_if<Phase>(&item)) {
      Cost& level = ph->inter_node ? total.inter : total.intra;
      level = add(level, phase_cost(*ph));
    }
  return total;
}

Cost plan_cost(const Plan& plan) {
  const LevelCost c = plan_cost_by_level(plan);
  return add(c.intra, c.inter);
}

}  // namespace cb::hier
