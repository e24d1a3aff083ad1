#include "algorithms/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "algorithms/check.hpp"
#include "algorithms/interval_set.hpp"

namespace cb {
namespace {

// Why a failure is an exception internally: the checks are deeply nested and
// the first violation ends validation; validate() turns it into a result.
struct Violation {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw Violation{std::move(message)}; }

std::string buffer_name(BufferId buf) {
  if (buf == kInput) return "input";
  if (buf == kOutput) return "output";
  return fmt::format("scratch{}", buf - kScratch0);
}

std::string describe(const Region& r) {
  return fmt::format("{}[{}, {})", buffer_name(r.buf), r.offset, r.offset + r.count);
}

// One rank's memory: the physical allocations its buffer ids map onto.
// Out of place: input -> allocation 0, output -> allocation 1; in place both
// views live in allocation 0 at in_place_layout's offsets. Scratch k -> 2 + k.
struct Memory {
  const Schedule* s = nullptr;
  InPlaceLayout layout;
  std::vector<IntervalSet> defined;  // per allocation

  explicit Memory(const Schedule& sched) : s(&sched) {
    layout = in_place_layout(sched.coll, sched.p, sched.rank, sched.count);
    defined.resize(2 + sched.scratch_counts.size());
    if (sched.in_place)
      defined[0].add(layout.input_offset, layout.input_offset + sched.input_count());
    else
      defined[0].add(0, sched.input_count());
  }

  struct Phys {
    std::size_t alloc;
    std::size_t lo, hi;
  };
  Phys phys(const Region& r) const {
    if (r.buf == kInput) {
      const std::size_t base = s->in_place ? layout.input_offset : 0;
      return {0, base + r.offset, base + r.offset + r.count};
    }
    if (r.buf == kOutput) {
      const std::size_t base = s->in_place ? layout.output_offset : 0;
      return {s->in_place ? 0u : 1u, base + r.offset, base + r.offset + r.count};
    }
    return {std::size_t{2} + (r.buf - kScratch0), r.offset, r.offset + r.count};
  }

  template <class Name>
  void check_defined(const Region& r, std::uint64_t step, Name&& what) const {
    const Phys ph = phys(r);
    if (auto gap = defined[ph.alloc].first_gap(ph.lo, ph.hi)) {
      const std::size_t base = ph.lo - r.offset;
      fail(fmt::format("step {}: rank {}: {} reads {}, but element {} of {} holds no data yet",
                       step, s->rank, what(), describe(r), *gap - base, buffer_name(r.buf)));
    }
  }
  void mark_written(const Region& r) {
    const Phys ph = phys(r);
    defined[ph.alloc].add(ph.lo, ph.hi);
  }
};

void check_header(std::span<const Schedule> all) {
  if (all.empty()) fail("no schedules (expected one per rank)");
  const Schedule& s0 = all[0];
  if (s0.p < 1) fail(fmt::format("p = {} (must be >= 1)", s0.p));
  if (all.size() != static_cast<std::size_t>(s0.p))
    fail(fmt::format("{} schedules for p = {} (expected one per rank)", all.size(), s0.p));
  for (std::size_t r = 0; r < all.size(); ++r) {
    const Schedule& s = all[r];
    if (s.rank != static_cast<int>(r))
      fail(fmt::format("schedule #{} is rank {}'s (expected rank {})", r, s.rank, r));
    if (s.coll != s0.coll || s.p != s0.p || s.count != s0.count || s.dtype != s0.dtype ||
        s.op != s0.op || s.in_place != s0.in_place || s.algorithm != s0.algorithm)
      fail(fmt::format("rank {}'s schedule is for {}/{} p={} count={} {} {} {}, rank 0's "
                       "for {}/{} p={} count={} {} {} {}",
                       r, to_string(s.coll), s.algorithm, s.p, s.count, to_string(s.dtype),
                       to_string(s.op), s.in_place ? "in-place" : "out-of-place",
                       to_string(s0.coll), s0.algorithm, s0.p, s0.count, to_string(s0.dtype),
                       to_string(s0.op), s0.in_place ? "in-place" : "out-of-place"));
    if (s.first_step != 0 || s.steps.size() != s.total_steps)
      fail(fmt::format("rank {}'s schedule is a window (steps [{}, {}) of {}); validate "
                       "needs whole schedules",
                       r, s.first_step, s.first_step + s.steps.size(), s.total_steps));
    if (s.steps.size() != s0.steps.size())
      fail(fmt::format("rank {} has {} steps, rank 0 has {} (every rank has one step per "
                       "global round)",
                       r, s.steps.size(), s0.steps.size()));
  }
}

template <class Name>
void check_region(const Schedule& s, std::uint64_t step, const Region& r, Name&& what) {
  const std::size_t nbuf = 2 + s.scratch_counts.size();
  if (r.buf >= nbuf)
    fail(fmt::format("step {}: rank {}: {} uses buffer id {}, which is not declared "
                     "({} scratch buffers)",
                     step, s.rank, what(), r.buf, s.scratch_counts.size()));
  const std::size_t size = s.buffer_count(r.buf);
  if (r.offset > size || r.count > size - r.offset)
    fail(fmt::format("step {}: rank {}: {} region {} is out of bounds of {} ({} elements)",
                     step, s.rank, what(), describe(r), buffer_name(r.buf), size));
}

template <class Name>
void check_peer(const Schedule& s, std::uint64_t step, int peer, Name&& what) {
  if (peer < 0 || peer >= s.p)
    fail(fmt::format("step {}: rank {}: {} names peer {}, out of range [0, {})", step, s.rank,
                     what(), peer, s.p));
  if (peer == s.rank)
    fail(fmt::format("step {}: rank {}: {} names itself as peer", step, s.rank, what()));
}

// Names of ops for messages, built only when a check fails.
std::string send_name(std::size_t i, const Send& x) {
  return fmt::format("send #{} to rank {}", i, x.peer);
}
std::string recv_name(std::size_t i, const Recv& x) {
  return fmt::format("{}-receive #{} from rank {}", x.mode == RecvMode::copy ? "copy" : "reduce",
                     i, x.peer);
}
std::string local_name(std::size_t i, const Local& x) {
  const char* kind = x.kind == LocalKind::copy     ? "copy"
                     : x.kind == LocalKind::reduce ? "reduce"
                                                   : "average";
  return fmt::format("local {} #{}", kind, i);
}

// Bounds, peers and op shapes of one rank's step.
void check_shapes(const Schedule& s, std::uint64_t step) {
  const Step& st = s.steps[step];
  for (std::size_t i = 0; i < st.sends.size(); ++i) {
    auto name = [&] { return send_name(i, st.sends[i]); };
    check_peer(s, step, st.sends[i].peer, name);
    check_region(s, step, st.sends[i].src, name);
  }
  for (std::size_t i = 0; i < st.recvs.size(); ++i) {
    const Recv& x = st.recvs[i];
    auto name = [&] { return recv_name(i, x); };
    check_peer(s, step, x.peer, name);
    check_region(s, step, x.dst, name);
    if (x.mode == RecvMode::reduce && !is_reducing(s.coll))
      fail(fmt::format("step {}: rank {}: {} reduces in {}, which has no reduction", step,
                       s.rank, name(), to_string(s.coll)));
  }
  for (std::size_t i = 0; i < st.locals.size(); ++i) {
    const Local& x = st.locals[i];
    auto name = [&] { return local_name(i, x); };
    check_region(s, step, x.dst, name);
    if (x.kind == LocalKind::average) continue;
    check_region(s, step, x.src, name);
    if (x.src.count != x.dst.count)
      fail(fmt::format("step {}: rank {}: {} from {} ({} elements) into {} ({} elements)", step,
                       s.rank, name(), describe(x.src), x.src.count, describe(x.dst),
                       x.dst.count));
    if (x.kind == LocalKind::reduce && !is_reducing(s.coll))
      fail(fmt::format("step {}: rank {}: {} reduces in {}, which has no reduction", step,
                       s.rank, name(), to_string(s.coll)));
  }
}

// Sends a->b and receives at b from a, in order, for one step.
void check_matching(std::span<const Schedule> all, std::uint64_t step) {
  const int p = all[0].p;
  // sends_to[b] lists (a, send index) in a-major order, so the k-th send a->b
  // comes k-th among a's entries.
  std::vector<std::vector<std::pair<int, std::size_t>>> sends_to(p);
  for (int a = 0; a < p; ++a) {
    const auto& sends = all[a].steps[step].sends;
    for (std::size_t i = 0; i < sends.size(); ++i) sends_to[sends[i].peer].push_back({a, i});
  }
  for (int b = 0; b < p; ++b) {
    // Group the sends into b per source, preserving order.
    std::vector<std::vector<std::size_t>> from(p);
    for (auto [a, i] : sends_to[b]) from[a].push_back(i);
    std::vector<std::size_t> taken(p, 0);
    const auto& recvs = all[b].steps[step].recvs;
    for (std::size_t j = 0; j < recvs.size(); ++j) {
      const Recv& rv = recvs[j];
      const int a = rv.peer;
      const std::size_t k = taken[a]++;
      if (k >= from[a].size())
        fail(fmt::format("step {}: rank {}: {} ({} elements) has no matching send: rank {} "
                         "sends {} message(s) to rank {} in this step",
                         step, b, recv_name(j, rv), rv.dst.count, a, from[a].size(), b));
      const Send& sd = all[a].steps[step].sends[from[a][k]];
      if (sd.src.count != rv.dst.count)
        fail(fmt::format("step {}: rank {} sends {} elements to rank {} ({}, its message #{} "
                         "to rank {}), which receives {} from rank {} ({})",
                         step, a, sd.src.count, b, send_name(from[a][k], sd), k, b,
                         rv.dst.count, a, recv_name(j, rv)));
    }
    for (int a = 0; a < p; ++a)
      if (taken[a] < from[a].size()) {
        const std::size_t i = from[a][taken[a]];
        fail(fmt::format("step {}: rank {}: {} ({} elements) is never received: rank {} posts "
                         "{} receive(s) from rank {} in this step",
                         step, a, send_name(i, all[a].steps[step].sends[i]),
                         all[a].steps[step].sends[i].src.count, b, taken[a], a));
      }
  }
}

enum AccessKind { kSendRead, kCopyRecv, kReduceRecv, kLocalWrite };
constexpr int kAccessKinds = 4;

// One region a step reads (sends) or writes (receives, local ops).
struct Access {
  Memory::Phys ph;
  AccessKind kind;
  std::size_t index;  // into the step's sends, recvs or locals
  Region region;
};

std::string access_name(const Step& st, const Access& a) {
  switch (a.kind) {
    case kSendRead: return send_name(a.index, st.sends[a.index]);
    case kCopyRecv:
    case kReduceRecv: return recv_name(a.index, st.recvs[a.index]);
    case kLocalWrite: break;
  }
  return local_name(a.index, st.locals[a.index]);
}

// Every non-empty access of the step; fails on writes to an out-of-place
// input and on local ops whose source and target partially overlap.
std::vector<Access> step_accesses(const Memory& mem, std::uint64_t step) {
  const Schedule& s = *mem.s;
  const Step& st = s.steps[step];
  std::vector<Access> acc;
  auto add = [&](const Region& r, AccessKind k, std::size_t index) {
    if (r.count == 0) return;
    acc.push_back({mem.phys(r), k, index, r});
    if (k != kSendRead && r.buf == kInput && !s.in_place)
      fail(fmt::format("step {}: rank {}: {} writes {}, but an out-of-place input is read-only",
                       step, s.rank, access_name(st, acc.back()), describe(r)));
  };
  for (std::size_t i = 0; i < st.sends.size(); ++i) add(st.sends[i].src, kSendRead, i);
  for (std::size_t i = 0; i < st.recvs.size(); ++i)
    add(st.recvs[i].dst, st.recvs[i].mode == RecvMode::copy ? kCopyRecv : kReduceRecv, i);
  for (std::size_t i = 0; i < st.locals.size(); ++i) {
    const Local& x = st.locals[i];
    add(x.dst, kLocalWrite, i);
    if (x.kind != LocalKind::average && x.src.count > 0 && !(x.src == x.dst)) {
      const auto a = mem.phys(x.src), b = mem.phys(x.dst);
      if (a.alloc == b.alloc && a.lo < b.hi && b.lo < a.hi)
        fail(fmt::format("step {}: rank {}: {} source {} and target {} partially overlap", step,
                         s.rank, local_name(i, x), describe(x.src), describe(x.dst)));
    }
  }
  return acc;
}

bool conflicts(AccessKind x, AccessKind y) {
  if (x == kSendRead && y == kSendRead) return false;
  if (x == kSendRead || y == kSendRead) return true;
  return x == kCopyRecv || y == kCopyRecv;  // writes vs writes
}

// Within one rank's step: writes vs reads of sends, copy-receives vs any other
// write, out-of-place input writes.
void check_hazards(const Memory& mem, std::uint64_t step) {
  const Schedule& s = *mem.s;
  const Step& st = s.steps[step];
  std::vector<Access> acc = step_accesses(mem, step);
  std::sort(acc.begin(), acc.end(), [](const Access& x, const Access& y) {
    return std::tie(x.ph.alloc, x.ph.lo) < std::tie(y.ph.alloc, y.ph.lo);
  });
  // Sweep: among earlier accesses of each kind in the same allocation, the one
  // reaching furthest is the one that overlaps the current access if any does.
  std::size_t cur_alloc = SIZE_MAX;
  const Access* furthest[kAccessKinds] = {};
  for (const Access& x : acc) {
    if (x.ph.alloc != cur_alloc) {
      cur_alloc = x.ph.alloc;
      std::fill(std::begin(furthest), std::end(furthest), nullptr);
    }
    for (int k = 0; k < kAccessKinds; ++k) {
      const Access* y = furthest[k];
      if (y && y->ph.hi > x.ph.lo && conflicts(x.kind, y->kind)) {
        const Access& rd = (y->kind == kSendRead) ? *y : x;
        const Access& wr = (y->kind == kSendRead) ? x : *y;
        if (x.kind == kSendRead || y->kind == kSendRead)
          fail(fmt::format("step {}: rank {}: {} writes {}, which {} reads ({}) in the same "
                           "step",
                           step, s.rank, access_name(st, wr), describe(wr.region),
                           access_name(st, rd), describe(rd.region)));
        fail(fmt::format("step {}: rank {}: {} writes {}, overlapping {} ({}); a copy-receive "
                         "must overlap nothing else written in its step",
                         step, s.rank, access_name(st, *y), describe(y->region),
                         access_name(st, x), describe(x.region)));
      }
    }
    if (!furthest[x.kind] || furthest[x.kind]->ph.hi < x.ph.hi) furthest[x.kind] = &x;
  }
}

// Reads of undefined data, in execution order, then the step's writes.
void check_initialised(Memory& mem, std::uint64_t step) {
  const Step& st = mem.s->steps[step];
  for (std::size_t i = 0; i < st.sends.size(); ++i)
    mem.check_defined(st.sends[i].src, step, [&] { return send_name(i, st.sends[i]); });
  for (std::size_t i = 0; i < st.recvs.size(); ++i)
    if (st.recvs[i].mode == RecvMode::reduce)
      mem.check_defined(st.recvs[i].dst, step, [&] { return recv_name(i, st.recvs[i]); });
  for (const Recv& x : st.recvs) mem.mark_written(x.dst);
  for (std::size_t i = 0; i < st.locals.size(); ++i) {
    const Local& x = st.locals[i];
    auto name = [&] { return local_name(i, x); };
    if (x.kind != LocalKind::average) mem.check_defined(x.src, step, name);
    if (x.kind != LocalKind::copy) mem.check_defined(x.dst, step, name);
    mem.mark_written(x.dst);
  }
}

void check_output_complete(const Memory& mem) {
  const Schedule& s = *mem.s;
  const Region out{kOutput, 0, s.output_count()};
  const auto ph = mem.phys(out);
  if (auto gap = mem.defined[ph.alloc].first_gap(ph.lo, ph.hi))
    fail(fmt::format("end: rank {}: output element {} is never written", s.rank,
                     *gap - ph.lo));
}

void validate_all(std::span<const Schedule> all) {
  check_header(all);
  std::vector<Memory> mem;
  mem.reserve(all.size());
  for (const Schedule& s : all) mem.emplace_back(s);
  const std::size_t nsteps = all[0].steps.size();
  for (std::uint64_t step = 0; step < nsteps; ++step) {
    for (const Schedule& s : all) check_shapes(s, step);
    check_matching(all, step);
    for (Memory& m : mem) check_hazards(m, step);
    for (Memory& m : mem) check_initialised(m, step);
  }
  for (const Memory& m : mem) check_output_complete(m);
}

}  // namespace

ValidationResult validate(std::span<const Schedule> all_ranks) {
  try {
    validate_all(all_ranks);
  } catch (const Violation& v) {
    return {false, v.message};
  }
  return {};
}

void validate_or_throw(std::span<const Schedule> all_ranks) {
  ValidationResult r = validate(all_ranks);
  if (r) return;
  if (all_ranks.empty()) throw InternalError("invalid schedule set: " + r.message);
  const Schedule& s = all_ranks.front();
  throw InternalError(fmt::format("{}/{} p={} count={} {} {} {}: invalid schedule: {}",
                                  to_string(s.coll), s.algorithm, s.p, s.count,
                                  to_string(s.dtype), to_string(s.op),
                                  s.in_place ? "in-place" : "out-of-place", r.message));
}

}  // namespace cb
