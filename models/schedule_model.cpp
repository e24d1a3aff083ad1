#include "models/schedule_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "algorithms/check.hpp"
#include "algorithms/schedule_cost.hpp"
#include "models/mode_probe.hpp"
#include "models/predict.hpp"
#include "models/shared_link.hpp"

namespace cb::models {
namespace {

// Element ranges of one buffer a rank has written, kept disjoint and sorted.
class Written {
 public:
  void add(std::size_t lo, std::size_t hi) {
    auto it = spans_.lower_bound(lo);
    if (it != spans_.begin() && std::prev(it)->second >= lo) --it;
    while (it != spans_.end() && it->first <= hi) {
      lo = std::min(lo, it->first);
      hi = std::max(hi, it->second);
      it = spans_.erase(it);
    }
    spans_.emplace(lo, hi);
  }
  std::size_t overlap(std::size_t lo, std::size_t hi) const {
    std::size_t n = 0;
    auto it = spans_.upper_bound(lo);
    if (it != spans_.begin()) --it;
    for (; it != spans_.end() && it->first < hi; ++it)
      if (it->second > lo) n += std::min(hi, it->second) - std::max(lo, it->first);
    return n;
  }

 private:
  std::map<std::size_t, std::size_t> spans_;  // first element -> one past the last
};

}  // namespace

StepWork step_work(const Step& st, DataType dtype) {
  const double esize = static_cast<double>(element_size(dtype));
  StepWork w;
  w.sends = static_cast<double>(st.sends.size());
  w.recvs = static_cast<double>(st.recvs.size());
  for (const Send& m : st.sends) w.out_B += static_cast<double>(m.src.count) * esize;
  for (const Recv& m : st.recvs) {
    const double b = static_cast<double>(m.dst.count) * esize;
    w.in_B += b;
    if (m.mode == RecvMode::reduce) {
      w.reduced_B += b;
      w.recv_reduced_B += b;
    }
  }
  for (const Local& l : st.locals)
    if (l.kind == LocalKind::reduce) w.reduced_B += static_cast<double>(l.dst.count) * esize;
  return w;
}

namespace {

// One rank's step: its messages, bytes, local work, the bytes it forwards
// (written earlier in the collective, tracked in `written` per buffer) and
// its staged reduces. Updates `written` with what the step writes.
void add_step(const Step& st, DataType dtype, std::vector<Written>& written, RankStep& x) {
  const double esize = static_cast<double>(element_size(dtype));
  const auto wrote = [&](const Region& g) {
    if (g.buf < written.size()) written[g.buf].add(g.offset, g.offset + g.count);
  };
  const StepWork w = step_work(st, dtype);
  x.sends = w.sends;
  x.recvs = w.recvs;
  x.out_B = w.out_B;
  x.in_B = w.in_B;
  x.reduced_B = w.reduced_B;
  x.recv_reduced_B = w.recv_reduced_B;
  for (const Send& m : st.sends) {
    if (m.src.buf < written.size())
      x.forwarded_B += static_cast<double>(written[m.src.buf].overlap(
                           m.src.offset, m.src.offset + m.src.count)) * esize;
  }
  // Staged reduces: the reduce of a scratch region this step received,
  // and the copy of the own part into that reduce's destination.
  std::vector<Region> staged_dst;
  for (const Local& l : st.locals) {
    if (l.kind != LocalKind::reduce || l.src.buf < kScratch0) continue;
    for (const Recv& m : st.recvs)
      if (m.mode == RecvMode::copy && m.dst == l.src) {
        x.staged_reduced_B += static_cast<double>(l.dst.count) * esize;
        ++x.staged_ops;
        staged_dst.push_back(l.dst);
        break;
      }
  }
  for (const Local& l : st.locals)
    if (l.kind == LocalKind::copy &&
        std::find(staged_dst.begin(), staged_dst.end(), l.dst) != staged_dst.end()) {
      x.staged_copied_B += static_cast<double>(l.dst.count) * esize;
      ++x.staged_ops;
    }
  for (const Recv& m : st.recvs) wrote(m.dst);
  for (const Local& l : st.locals) wrote(l.dst);
  for (const Recv& m : st.recvs)
    if (std::find(x.from.begin(), x.from.end(), m.peer) == x.from.end()) x.from.push_back(m.peer);
  for (const Local& l : st.locals) {
    if (l.kind == LocalKind::copy) x.copied_B += static_cast<double>(l.dst.count) * esize;
    if (l.kind != LocalKind::average) ++x.local_ops;
  }
  std::sort(x.from.begin(), x.from.end());
  if (x.from.size() < 2) return;  // one sender: in_B is its bytes
  x.from_B.assign(x.from.size(), 0.0);
  for (const Recv& m : st.recvs) {
    const auto i = std::lower_bound(x.from.begin(), x.from.end(), m.peer) - x.from.begin();
    x.from_B[static_cast<std::size_t>(i)] += static_cast<double>(m.dst.count) * esize;
  }
}

// Column r (of `ranks` columns) of f from one rank's schedule: its working
// set and its steps, growing f.steps (with all-zero steps for the other
// ranks) where this schedule is the longest so far.
void add_rank(const Schedule& s, std::size_t r, std::size_t ranks, ScheduleFeatures& f) {
  if (f.steps.size() < s.steps.size()) f.steps.resize(s.steps.size(), std::vector<RankStep>(ranks));
  const double esize = static_cast<double>(element_size(s.dtype));
  double ws = 0;
  const std::size_t buffers = kScratch0 + s.scratch_counts.size();
  for (std::size_t b = 0; b < buffers; ++b) {
    if (b == kOutput && s.in_place) continue;  // one allocation holds both views
    ws += static_cast<double>(s.buffer_count(static_cast<BufferId>(b))) * esize;
  }
  f.working_set_B.push_back(ws);
  std::vector<Written> written(buffers);
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    add_step(s.steps[i], s.dtype, written, f.steps[i][r]);
}

}  // namespace

ScheduleFeatures schedule_features(std::span<const Schedule> all_ranks) {
  ScheduleFeatures f;
  for (std::size_t r = 0; r < all_ranks.size(); ++r) add_rank(all_ranks[r], r, all_ranks.size(), f);
  return f;
}

ScheduleFeatures features_for(const AlgorithmEntry& algo, const Scenario& s, std::uint64_t count) {
  return features_for(algo, coll_params(s, count));
}

ScheduleFeatures features_for(const AlgorithmEntry& algo, const CollParams& params) {
  const std::vector<Schedule> all = make_all_schedules(algo, params);
  return schedule_features(all);
}

namespace {

bool uses(TermSet use, Term term, const ModelTerms& t) {
  return use.contains(term) && t.has(term);
}

double baseline(const ScheduleFeatures& f, const ModelParams& m) {
  double total = 0;
  for (const auto& step : f.steps) {
    double k = 0, wire = 0, red = 0;
    for (const RankStep& x : step) {
      k = std::max(k, std::max(x.sends, x.recvs));
      wire = std::max(wire, std::max(x.out_B, x.in_B));
      red = std::max(red, x.reduced_B);
    }
    total += m.alpha_s * k + m.beta_s_per_B * wire + m.gamma_s_per_B * red;
  }
  return total;
}

}  // namespace

namespace {

// One rank's step as the terms price it (seconds).
struct PricedStep {
  double local = 0;    // copies, reduces and per-op costs after the messages
  double latency = 0;  // k * alpha, or alpha + (k-1) * o with `overhead`; k = max(sends, receives)
  double wire = 0;     // beta(m) * max(bytes sent, bytes received)
  double forward = 0;  // `forward` on the bytes sent
  double incast = 0;   // `incast` on the bytes received from k >= 2 senders
  double out = 0;      // the sends alone: latency of the sends + beta(m) * bytes sent + forward
  double send_latency = 0;  // the latency part of `out`: when its bytes start to leave
  double beta = 0;          // beta(m) of the step's messages, s/B
  // With `buffering`, the bytes sent that the transport buffers: the sender's step
  // does not wait for them to cross its link (they still do, at beta).
  double buffered_B = 0;
  double comm() const { return latency + wire + forward + incast; }
};

// The terms a step is priced with: a set of Term (priced_terms below).
using Uses = TermSet;

PricedStep price_step(const RankStep& x, double delta, double gamma, const ModelParams& base,
                      const ModelTerms& t, const Uses& u) {
  PricedStep p;
  const bool both = x.out_B > 0 && x.in_B > 0;
  // The reducing exchange's ranges price the reduce of what arrives too.
  const bool fused = u.contains(Term::concurrency) && both && x.recv_reduced_B == x.in_B && !t.exchange_reduce.empty();
  const bool staged = u.contains(Term::staged) && both && !fused && x.staged_reduced_B == x.in_B;
  p.local = gamma * (x.reduced_B - (fused ? x.recv_reduced_B : 0) -
                     (staged ? x.staged_reduced_B : 0)) +
            delta * (x.copied_B - (staged ? x.staged_copied_B : 0)) +
            (u.contains(Term::copy) ? t.local_op_s * (x.local_ops - (staged ? x.staged_ops : 0)) : 0);
  const double k = std::max(x.sends, x.recvs);
  if (k == 0) return p;
  const double wire = std::max(x.out_B, x.in_B);
  const double m = wire / k;
  double alpha = base.alpha_s, beta = base.beta_s_per_B;
  const SizeRange* range = fused       ? range_for(t.exchange_reduce, m)
                           : staged    ? range_for(t.exchange_staged, m)
                           : u.contains(Term::concurrency) && both ? range_for(t.exchange, m)
                           : u.contains(Term::range)       ? range_for(t.oneway, m)
                                       : nullptr;
  if (range) {
    alpha = range->alpha_s;
    beta = range->beta_s_per_B;
  }
  const auto latency = [&](double n) { return u.contains(Term::overhead) ? alpha + (n - 1) * t.overhead_s : n * alpha; };
  p.latency = latency(k);
  p.wire = beta * wire;
  if (u.contains(Term::forward)) p.forward = t.forward.at(m) * x.forwarded_B;
  // The receiver's link is what k senders share: priced on the receiver,
  // from the k-way exchange when it sends in the same step.
  if (u.contains(Term::incast) && x.from.size() >= 2)
    p.incast = (x.out_B > 0 ? t.incast_sending : t.incast).at(static_cast<double>(x.from.size())) *
               x.in_B;
  p.beta = beta;
  if (x.sends > 0) {
    p.send_latency = latency(x.sends);
    p.out = p.send_latency + beta * x.out_B + p.forward;
    if (u.contains(Term::buffering)) p.buffered_B = std::clamp(t.buffered.at(x.out_B / x.sends), 0.0, 1.0) * x.out_B;
  }
  return p;
}

}  // namespace

namespace {

// Step i's priced ranks, written into `out` (p entries): computed again in
// each clock pass, so that memory stays at one step whatever the schedule's
// length.
using StepPricer = std::function<void(std::size_t i, std::vector<PricedStep>& out)>;

// One message's bytes on the links it crosses, as the clocks last placed it:
// its receiver's, and with `buffering` its sender's (the sender may have sent before
// its previous messages crossed).
struct Inflow {
  std::size_t receiver = 0;
  int sender = -1;
  LinkTransfer link;    // from the sender's first byte, bytes x the sender's beta
  double alone_s = 0;   // when it arrives with the links to itself
  bool on_receiver_link = false, on_sender_link = false;  // which of them it may share
};

// The clocks of `flight` with each recorded message's arrival later by `delay`
// (seconds, one per recorded message in the order the loop meets them); the
// collective's seconds. Records the messages into the receivers marked in
// `shared_in` (those with two or more senders over the schedule: one
// sender's messages follow each other and never share) and out of the
// senders marked in `shared_out` (with `buffering`: two or more receivers).
// Each rank's clock starts at its `arrival` (SECONDS; empty: all at 0) and
// ends in `finish` when given.
double clock_pass(const ScheduleFeatures& f, const StepPricer& price, double flight_s,
                  const std::vector<char>& shared_in, const std::vector<char>& shared_out,
                  const std::vector<double>& delay, std::vector<Inflow>& in,
                  std::span<const double> arrival, std::vector<double>* finish) {
  const std::size_t p = f.working_set_B.size();
  std::vector<double> clock(p, 0.0), start(p, 0.0);
  if (!arrival.empty()) clock.assign(arrival.begin(), arrival.end());
  std::vector<PricedStep> priced(p);
  in.clear();
  for (std::size_t i = 0; i < f.steps.size(); ++i) {
    price(i, priced);
    start = clock;
    for (std::size_t r = 0; r < p; ++r) {
      const PricedStep& x = priced[r];
      const RankStep& rs = f.steps[i][r];
      double arrived = 0;  // latest arrival of what r receives in the step
      double pending_B = 0;  // of those bytes, what is still on the way at r's clock
      for (std::size_t j = 0; j < rs.from.size(); ++j) {
        const int q = rs.from[j];
        if (q < 0 || static_cast<std::size_t>(q) >= p) continue;
        const PricedStep& y = priced[static_cast<std::size_t>(q)];
        const double bytes = j < rs.from_B.size() ? rs.from_B[j]
                                                  : rs.in_B / static_cast<double>(rs.from.size());
        const double first = start[static_cast<std::size_t>(q)] + y.send_latency;
        const double alone = start[static_cast<std::size_t>(q)] + y.out;
        double arrive = alone;
        const bool out_shared = !shared_out.empty() && shared_out[static_cast<std::size_t>(q)];
        if (shared_in[r] || out_shared) {
          arrive += in.size() < delay.size() ? delay[in.size()] : 0.0;
          in.push_back({r, q, {first, y.beta * bytes}, alone, shared_in[r] != 0, out_shared});
        }
        arrived = std::max(arrived, arrive);
        // Bytes cross the link evenly from the first to the arrival.
        pending_B += bytes * (arrive <= clock[r] ? 0.0
                              : first >= clock[r] ? 1.0
                                                  : (arrive - clock[r]) / (arrive - first));
      }
      // What already crossed r's link while r was busy costs its step no
      // link time: the step's wire is priced on the bytes still pending, and
      // on the bytes sent that the transport does not buffer `buffering`.
      const double wire =
          x.beta * std::max(rs.out_B - x.buffered_B, std::min(rs.in_B, pending_B));
      const double ready =
          std::max(clock[r] + x.comm() - x.wire + wire - std::min(flight_s, x.latency), arrived);
      clock[r] = ready + x.local;
    }
  }
  if (finish) *finish = clock;
  return clock.empty() ? 0.0 : *std::max_element(clock.begin(), clock.end());
}

// How much later each inflow arrives when a link is shared by the messages
// that cross it at once (shared_link.hpp): beyond the time it would arrive
// alone, never negative, the larger of its receiver's link's delay and `buffering`
// its sender's. Messages between one pair of ranks follow each other (one
// connection sends them in order), so each starts no earlier than the one
// before it arrived.
std::vector<double> link_delays(const std::vector<Inflow>& in, std::size_t ranks) {
  std::vector<double> delay(in.size(), 0.0);
  std::vector<LinkTransfer> link;
  std::vector<double> last(ranks, 0.0);  // per peer: when its previous message arrived
  for (const bool sender_side : {false, true}) {
    std::vector<std::vector<std::size_t>> by_link(ranks);
    for (std::size_t k = 0; k < in.size(); ++k) {
      const Inflow& m = in[k];
      if (sender_side ? m.on_sender_link : m.on_receiver_link)
        by_link[sender_side ? static_cast<std::size_t>(m.sender) : m.receiver].push_back(k);
    }
    const auto peer = [&](const Inflow& m) {
      return sender_side ? m.receiver : static_cast<std::size_t>(m.sender);
    };
    for (const std::vector<std::size_t>& ks : by_link) {
      if (ks.size() < 2) continue;
      link.clear();
      for (std::size_t k : ks) {
        LinkTransfer t = in[k].link;
        t.start_s = std::max(t.start_s, last[peer(in[k])]);
        last[peer(in[k])] = in[k].alone_s;
        link.push_back(t);
      }
      const std::vector<double> ends = shared_link_ends(link);
      for (std::size_t j = 0; j < ks.size(); ++j) {
        delay[ks[j]] = std::max(delay[ks[j]], ends[j] - in[ks[j]].alone_s);
        last[peer(in[ks[j]])] = 0.0;  // for the next link
      }
    }
  }
  return delay;
}

// `flight`'s price: clock passes until the links' delays settle. A message that
// flies early shares its receiver's link with what that receiver is still
// receiving, which then arrives later, which moves the clocks; a few passes
// settle it, and with no overlap the first pass is the answer.
// With `buffering`, a sender's messages may overlap on its own link too.
// Under an arrival pattern the clocks start at `arrival` and end in
// `finish`; without `flight` (share_links false) no link is shared.
double clocked_seconds(const ScheduleFeatures& f, const StepPricer& price, double flight_s,
                       bool buffering, std::span<const double> arrival = {},
                       std::vector<double>* finish = nullptr, bool share_links = true) {
  constexpr int kMaxPasses = 8;
  const std::size_t p = f.working_set_B.size();
  std::vector<char> shared_in(p, 0), shared_out(buffering ? p : 0, 0);
  std::vector<int> first_sender(p, -1), first_receiver(p, -1);
  for (const auto& step : f.steps)
    for (std::size_t r = 0; share_links && r < p && r < step.size(); ++r)
      for (int q : step[r].from) {
        if (first_sender[r] < 0) first_sender[r] = q;
        if (q != first_sender[r]) shared_in[r] = 1;
        if (!buffering || q < 0 || static_cast<std::size_t>(q) >= p) continue;
        const auto sq = static_cast<std::size_t>(q);
        if (first_receiver[sq] < 0) first_receiver[sq] = static_cast<int>(r);
        if (first_receiver[sq] != static_cast<int>(r)) shared_out[sq] = 1;
      }
  std::vector<double> delay;
  std::vector<Inflow> in;
  double seconds = 0;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    seconds = clock_pass(f, price, flight_s, shared_in, shared_out, delay, in, arrival, finish);
    std::vector<double> next = link_delays(in, f.working_set_B.size());
    double moved = 0;
    for (std::size_t k = 0; k < next.size(); ++k)
      moved = std::max(moved, std::fabs(next[k] - (k < delay.size() ? delay[k] : 0.0)));
    if (moved <= 1e-9 * seconds) break;
    delay = std::move(next);
  }
  return seconds;
}

}  // namespace

namespace {

// priced_seconds, and under an arrival pattern (non-empty `arrival`) the
// per-rank clocks started there, every rank's finish into `finish`.
double priced(const ScheduleFeatures& f, const ModelParams& base, const ModelTerms& t,
              TermSet use, const ModeProbe& row, std::span<const double> arrival,
              std::vector<double>* finish) {
  if (uses(use, Term::probe, t) && row.measured()) {
    const InMode m = in_mode(base, t, row);
    TermSet rest;
    for (const TermInfo& info : kTerms)
      if (info.term != Term::probe && use.contains(info.term)) rest.add(info.term);
    return priced(f, m.base, m.terms, rest, {}, arrival, finish);
  }
  // The terms asked for that the calibration measured, `probe` aside (priced
  // above); `buffering` prices through `flight`'s clocks: without them a step
  // waits for its slowest rank, sends and all.
  Uses u;
  for (const TermInfo& info : kTerms)
    if (info.term != Term::probe && uses(use, info.term, t) &&
        (info.term != Term::buffering || uses(use, Term::flight, t)))
      u.add(info.term);
  const bool clocks = u.contains(Term::flight) || !arrival.empty();
  if (u.empty() && !clocks) return baseline(f, base);
  const std::size_t p = f.working_set_B.size();
  std::vector<double> delta(p), gamma(p);
  for (std::size_t r = 0; r < p; ++r) {
    delta[r] = u.contains(Term::copy) ? t.copy.at(f.working_set_B[r]) : 0;
    gamma[r] = u.contains(Term::copy) ? t.reduce.at(f.working_set_B[r]) : base.gamma_s_per_B;
  }
  const double run = u.contains(Term::range) ? t.run_s : 0;
  if (!clocks) {
    // Step-synchronous: every step is a global round that takes its slowest rank.
    double total = run;
    for (const auto& step : f.steps) {
      double slowest = 0;
      for (std::size_t r = 0; r < step.size(); ++r) {
        const PricedStep x = price_step(step[r], delta[r], gamma[r], base, t, u);
        slowest = std::max(slowest, x.local + x.comm());
      }
      total += slowest;
    }
    return total;
  }
  // `flight`, or an arrival pattern: per-rank clocks along the dependencies
  // (schedule_model.hpp); flight and shared links only with `flight`.
  const StepPricer price = [&](std::size_t i, std::vector<PricedStep>& out) {
    for (std::size_t r = 0; r < p; ++r)
      out[r] = price_step(f.steps[i][r], delta[r], gamma[r], base, t, u);
  };
  const double seconds =
      clocked_seconds(f, price, u.contains(Term::flight) ? t.flight_s : 0.0, u.contains(Term::buffering), arrival, finish, u.contains(Term::flight));
  if (finish)
    for (double& c : *finish) c += run;
  return run + seconds;
}

}  // namespace

double priced_seconds(const ScheduleFeatures& f, const ModelParams& base, const ModelTerms& t,
                      TermSet use, const ModeProbe& row) {
  return priced(f, base, t, use, row, {}, nullptr);
}

std::vector<double> priced_finish_s(const ScheduleFeatures& f, const ModelParams& base,
                                    const ModelTerms& terms, TermSet use,
                                    std::span<const double> arrival_s) {
  CB_CHECK(arrival_s.size() == f.working_set_B.size(), "{} arrivals for {} ranks",
           arrival_s.size(), f.working_set_B.size());
  std::vector<double> finish;
  priced(f, base, terms, use, {}, arrival_s, &finish);
  return finish;
}

bool same_work(const ScheduleWork& a, const ScheduleWork& b) {
  if (a.size() != b.size()) return false;
  const auto longest = [](const ScheduleWork& w) {
    std::size_t n = 0;
    for (const auto& steps : w) n = std::max(n, steps.size());
    return n;
  };
  if (longest(a) != longest(b)) return false;
  // A rank with fewer steps than the longest is idle in the rest.
  const StepWork idle;
  for (std::size_t r = 0; r < a.size(); ++r)
    for (std::size_t i = 0; i < std::max(a[r].size(), b[r].size()); ++i)
      if ((i < a[r].size() ? a[r][i] : idle) != (i < b[r].size() ? b[r][i] : idle)) return false;
  return true;
}

std::vector<int> compared_ranks(int p) {
  std::vector<int> out;
  if (p <= kExactComparedRanks) {
    for (int r = 0; r < p; ++r) out.push_back(r);
    return out;
  }
  // The first and last ranks (where trees, halvings and rings have their
  // edge cases), then ranks spread evenly over the rest, in rank order.
  constexpr int kEdge = kExactComparedRanks / 4;
  constexpr int kSpread = kExactComparedRanks - 2 * kEdge;
  for (int r = 0; r < kEdge; ++r) out.push_back(r);
  for (int i = 1; i <= kSpread; ++i) {
    const int r = kEdge + static_cast<int>(static_cast<long long>(i) * (p - 2 * kEdge) / (kSpread + 1));
    if (r > out.back() && r < p - kEdge) out.push_back(r);
  }
  for (int r = p - kEdge; r < p; ++r) out.push_back(r);
  return out;
}

namespace {

// The StepWork of `ranks`' schedules only, each built in the step vectors
// of the one before (without holding them all or allocating every step
// afresh).
ScheduleWork work_of_ranks(const AlgorithmEntry& algo, CollParams params,
                           const std::vector<int>& ranks) {
  ScheduleWork w(ranks.size());
  Schedule storage;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    params.rank = ranks[k];
    storage = make_schedule(algo, params, 0, ScheduleBuilder::kNoEnd, std::move(storage));
    w[k].reserve(storage.steps.size());
    for (const Step& st : storage.steps) w[k].push_back(step_work(st, storage.dtype));
  }
  return w;
}

}  // namespace

std::vector<std::size_t> identical_schedule_groups(const std::vector<const AlgorithmEntry*>& entries,
                                                   const Scenario& s, std::uint64_t lo_count,
                                                   std::uint64_t hi_count) {
  std::vector<std::size_t> rep(entries.size());
  const std::vector<int> ranks = compared_ranks(s.p);
  std::vector<std::optional<std::pair<ScheduleWork, ScheduleWork>>> feats(entries.size());
  const auto usable = [&](std::size_t i) {
    return entries[i] != nullptr && entries[i]->generate != nullptr && hi_count > 0;
  };
  // Schedules that exchange the same messages cost the same (every cost
  // function returns exactly what its schedule costs, tests/algorithms), so
  // only algorithms of equal closed-form cost at both counts are compared
  // message by message, and only on compared_ranks(p): building every rank's
  // schedule costs O(p^2) at p ranks for some algorithms (ring, pairwise),
  // and a results file may hold hundreds of rank counts.
  const auto features = [&](std::size_t i) -> const auto& {
    if (!feats[i]) feats[i] = {work_of_ranks(*entries[i], coll_params(s, lo_count), ranks),
                               work_of_ranks(*entries[i], coll_params(s, hi_count), ranks)};
    return *feats[i];
  };
  std::vector<std::pair<Cost, Cost>> costs(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (usable(i))
      costs[i] = {model_cost(*entries[i], s, lo_count), model_cost(*entries[i], s, hi_count)};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    rep[i] = i;
    if (!usable(i)) continue;
    for (std::size_t j = 0; j < i; ++j)
      if (rep[j] == j && usable(j) && costs[i] == costs[j] &&
          same_work(features(i).first, features(j).first) &&
          same_work(features(i).second, features(j).second)) {
        rep[i] = j;
        break;
      }
  }
  return rep;
}

}  // namespace cb::models
