// Every registered (collective, algorithm) on the simulator against the
// schedule-derived cost (schedule_cost) and the closed form:
//  - asynchronous and round-synchronous simulated time never exceed the cost;
//  - round-synchronous time equals the cost exactly whenever each step has
//    one critical rank (the step's max message count and max bytes on one
//    port side of one rank that also reduces the step's max bytes);
//  - the asynchronous default equals the cost exactly except for the
//    algorithms async_may_beat_cost() lists (fast_path.hpp), which are
//    legitimately faster;
//  - moving real bytes (--sim-verify) gives the reference executor's output.
// Parameters are powers of two so both sides are exact in double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

#include "algorithms/schedule_cost.hpp"
#include "transports/reference/reference.hpp"
#include "transports/sim/simulator.hpp"

namespace cb::sim {
namespace {

constexpr double kAlpha = 0x1p-20, kBeta = 0x1p-33, kGamma = 0x1p-34;

NetworkParams dyadic(bool rounds = false) {
  NetworkParams n;
  n.alpha_s = kAlpha;
  n.beta_s_per_B = kBeta;
  n.gamma_s_per_B = kGamma;
  n.round_synchronous = rounds;
  return n;
}

double seconds(const Cost& c) { return kAlpha * c.alpha + kBeta * c.beta + kGamma * c.gamma; }

std::string key(const AlgorithmEntry& e) { return fmt::format("{}/{}", to_string(e.coll), e.name); }

// The discrete-event simulation itself, never the exact fast path.
SimResult des(const AlgorithmEntry& e, const CollParams& params, const NetworkParams& net) {
  SimOptions o;
  o.fast_path = false;
  return simulate(e, params, net, o);
}

// Where the asynchronous model has slack (fast_path.hpp's async_may_beat_cost,
// for some p): every other algorithm must match the cost exactly, and these
// must beat it somewhere (else the list is stale).
bool has_async_slack(const AlgorithmEntry& e) {
  for (int p = 1; p <= 64; ++p)
    if (async_may_beat_cost(e, p)) return true;
  return false;
}

// Whether every step has one rank that attains the step's maximum message
// count and maximum bytes on the same side (sends or receives) and the
// maximum reduced bytes: then a round costs exactly that rank's work.
bool one_critical_rank_per_step(std::span<const Schedule> all) {
  const std::size_t steps = all.empty() ? 0 : all[0].steps.size();
  const std::vector<Cost> per_step = per_step_cost(all);
  for (std::size_t s = 0; s < steps; ++s) {
    const Cost& c = per_step[s];
    if (c == Cost{}) continue;
    bool found = false;
    for (const Schedule& sch : all) {
      const Step& st = sch.steps[s];
      const double es = static_cast<double>(element_size(sch.dtype));
      double sent = 0, recvd = 0, reduced = 0;
      for (const Send& x : st.sends) sent += static_cast<double>(x.src.count) * es;
      for (const Recv& x : st.recvs) {
        recvd += static_cast<double>(x.dst.count) * es;
        if (x.mode == RecvMode::reduce) reduced += static_cast<double>(x.dst.count) * es;
      }
      for (const Local& x : st.locals)
        if (x.kind == LocalKind::reduce) reduced += static_cast<double>(x.dst.count) * es;
      const bool send_side = static_cast<double>(st.sends.size()) == c.alpha && sent == c.beta;
      const bool recv_side = static_cast<double>(st.recvs.size()) == c.alpha && recvd == c.beta;
      if ((send_side || recv_side) && reduced == c.gamma) found = true;
    }
    if (!found) return false;
  }
  return true;
}

std::vector<std::size_t> counts_for(Collective c, int p) {
  if (c == Collective::allreduce) return {1, static_cast<std::size_t>(p) + 1, 1000};
  return {1, 3, 37};
}

TEST(SimRegistry, AlgorithmsAreRegistered) { EXPECT_FALSE(all_algorithms().empty()); }

TEST(SimRegistry, NeverExceedsScheduleCostAndMatchesItWhereTheModelHasNoSlack) {
  for (const AlgorithmEntry* e : all_algorithms()) {
    int async_exact = 0, async_faster = 0, rounds_exact_expected = 0;
    for (int p = 1; p <= 64; ++p) {
      for (std::size_t count : counts_for(e->coll, p)) {
        CollParams params;
        params.coll = e->coll;
        params.p = p;
        params.count = count;
        const std::vector<Schedule> all = make_all_schedules(*e, params);
        const double cost = seconds(schedule_cost(all));
        const double async = des(*e, params, dyadic()).time_s;
        const double rounds = des(*e, params, dyadic(true)).time_s;
        const std::string where = fmt::format("{} p={} count={}", key(*e), p, count);
        EXPECT_LE(async, cost) << where;
        EXPECT_LE(rounds, cost) << where;
        if (one_critical_rank_per_step(all)) {
          ++rounds_exact_expected;
          EXPECT_EQ(rounds, cost) << where << " (one critical rank per step)";
        }
        if (!async_may_beat_cost(*e, p)) {
          EXPECT_EQ(async, cost) << where;
        }
        async_exact += async == cost;
        async_faster += async < cost;
      }
    }
    if (has_async_slack(*e)) {
      EXPECT_GT(async_faster, 0) << key(*e) << " is listed as having slack but never beats the cost";
    }
    RecordProperty(key(*e) + "_async_exact_cases", async_exact);
    RecordProperty(key(*e) + "_one_critical_rank_cases", rounds_exact_expected);
  }
}

// At scale, against the closed form, for algorithms with few enough messages.
TEST(SimRegistry, LargeRankCountsStayWithinTheClosedForm) {
  for (const AlgorithmEntry* e : all_algorithms()) {
    for (int p : {1000, 4096}) {
      CollParams params;
      params.coll = e->coll;
      params.p = p;
      params.count = e->coll == Collective::allreduce ? 1 << 20 : 256;
      const Cost cf = closed_form_cost(*e, params);
      if (cf.alpha * p > 1.2e6) continue;  // O(p^2) messages: the benchmark covers those
      const double t = des(*e, params, dyadic()).time_s;
      const std::string where = fmt::format("{} p={}", key(*e), p);
      EXPECT_LE(t, seconds(cf)) << where;
      if (!async_may_beat_cost(*e, p)) {
        EXPECT_EQ(t, seconds(cf)) << where;
      }
      EXPECT_GT(t, 0) << where;
    }
  }
}

TEST(SimRegistry, RepeatedRunsAreBitIdentical) {
  NetworkParams net = dyadic();
  net.noise_s = 1e-6;
  net.skew_s = 3e-6;
  for (const AlgorithmEntry* e : all_algorithms()) {
    CollParams params;
    params.coll = e->coll;
    params.p = 37;
    params.count = 1001;
    const SimResult a = des(*e, params, net), b = des(*e, params, net);
    EXPECT_EQ(a.time_s, b.time_s) << key(*e);
    EXPECT_EQ(a.messages, b.messages) << key(*e);
  }
}

// Inputs whose every reduction is exact: small integers (as int32 or fp32).
std::vector<std::vector<std::byte>> inputs_for(const CollParams& params) {
  std::vector<std::vector<std::byte>> in;
  const std::size_t n = input_count(params.coll, params.p, params.count);
  for (int r = 0; r < params.p; ++r) {
    std::vector<std::byte> bytes(n * 4);
    for (std::size_t i = 0; i < n; ++i) {
      const int v = static_cast<int>((static_cast<std::size_t>(r) * 7 + i * 3) % 11) - 3;
      if (params.dtype == DataType::fp32) {
        const float f = static_cast<float>(v);
        std::memcpy(bytes.data() + i * 4, &f, 4);
      } else {
        std::memcpy(bytes.data() + i * 4, &v, 4);
      }
    }
    in.push_back(std::move(bytes));
  }
  return in;
}

TEST(SimRegistry, MovingRealBytesGivesTheReferenceExecutorsOutput) {
  for (const AlgorithmEntry* e : all_algorithms()) {
    for (int p : {1, 2, 3, 5, 8}) {
      for (std::size_t count : {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(p) + 1, std::size_t{37}}) {
        for (bool in_place : {false, true}) {
          CollParams params;
          params.coll = e->coll;
          params.p = p;
          params.count = count;
          params.in_place = in_place;
          params.dtype = (p % 2) ? DataType::int32 : DataType::fp32;
          params.op = (p % 3 == 0) ? ReduceOp::max : ReduceOp::sum;
          const auto inputs = inputs_for(params);
          const DataRun run = simulate_with_data(*e, params, dyadic(), inputs);
          const auto want = run_reference(make_all_schedules(*e, params), inputs);
          EXPECT_EQ(run.outputs, want) << fmt::format("{} p={} count={} in_place={}", key(*e), p,
                                                      count, in_place);
          EXPECT_EQ(run.result.time_s, des(*e, params, dyadic()).time_s);
        }
      }
    }
  }
}

}  // namespace
}  // namespace cb::sim
