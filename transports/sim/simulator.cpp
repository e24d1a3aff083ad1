#include "transports/sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "models/node_links.hpp"
#include "models/parallel.hpp"
#include "transports/contract/counter_random.hpp"
#include "transports/sim/data_mover.hpp"

namespace cb::sim {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr std::uint64_t kSkewTag = ~std::uint64_t{0};

class Engine {
 public:
  Engine(int p, const NetworkParams& net, const std::vector<double>& arrival_s)
      : p_(p), net_(net), ready_(static_cast<std::size_t>(p)), start_(static_cast<std::size_t>(p)),
        comm_end_(static_cast<std::size_t>(p)), live_(static_cast<std::size_t>(p), 1),
        stalled_now_(static_cast<std::size_t>(p), 0), waits_(static_cast<std::size_t>(p)) {
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      start_[ur] = net.skew_s > 0 ? net.skew_s * counter_uniform(net.seed, static_cast<std::uint64_t>(r), kSkewTag) : 0;
      if (!arrival_s.empty()) start_[ur] = arrival_s[ur];
      ready_[ur] = start_[ur];
    }
  }

  // When each rank finished its last step (its clock), seconds.
  const std::vector<double>& finish() const { return ready_; }

  void run_window(const Window& w, DataMover* data) {
    for (std::uint64_t s = 0; s < w.steps; ++s) {
      step(w, s);
      if (data && !any_stall_) data->step(w, s);
    }
  }

  double time() const {
    double t = 0;
    for (int r = 0; r < p_; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      t = std::max(t, ready_[ur] - start_[ur]);
    }
    return t;
  }

  // Throws StallError when a rank got stuck.
  void check_stalls() const {
    if (!any_stall_) return;
    std::vector<Wait> waits;
    for (const auto& w : waits_)
      if (w) waits.push_back(*w);
    std::string what = fmt::format("schedules stalled: {} of {} ranks cannot finish:", waits.size(), p_);
    constexpr std::size_t kShown = 8;
    for (std::size_t i = 0; i < std::min(kShown, waits.size()); ++i) {
      const Wait& w = waits[i];
      switch (w.why) {
        case WaitReason::no_matching_send:
          what += fmt::format(" rank {} at step {} waits for a message from rank {}, which sends it none in that step;", w.rank, w.step, w.peer);
          break;
        case WaitReason::no_matching_recv:
          what += fmt::format(" rank {} at step {} sends to rank {}, which posts no matching receive;", w.rank, w.step, w.peer);
          break;
        case WaitReason::peer_stalled:
          what += fmt::format(" rank {} at step {} waits on rank {}, which never reaches that step;", w.rank, w.step, w.peer);
          break;
      }
    }
    if (waits.size() > kShown) what += fmt::format(" ... and {} more", waits.size() - kShown);
    else what.pop_back();
    throw StallError(std::move(what), std::move(waits));
  }

 private:
  bool intra(int a, int b) const {
    return net_.ranks_per_node > 0 && a / net_.ranks_per_node == b / net_.ranks_per_node;
  }
  // How long a message between a and b holds a port, and how long after
  // that it arrives (seconds): models::PortRule, the two-level walk's rule.
  double hold(int a, int b, std::uint64_t bytes) const {
    return port_.hold(intra(a, b), static_cast<double>(bytes));
  }
  double after(int a, int b) const { return port_.after(intra(a, b)); }

  void stall(int rank, std::uint64_t step, int peer, WaitReason why) {
    auto& w = waits_[static_cast<std::size_t>(rank)];
    if (!w) w = Wait{rank, step, peer, why};
    stalled_now_[static_cast<std::size_t>(rank)] = 1;
    any_stall_ = true;
  }

  // One step of every live rank: the ports serve sends, then receives, then
  // each rank finishes the step (reductions, noise).
  void step(const Window& w, std::uint64_t s) {
    const std::uint64_t gs = w.first_step + s;
    const std::uint32_t base = w.send_off[w.slot(0, s)];
    out_end_.resize(w.send_off[w.slot(0, s + 1)] - base);
    post_sends(w, s, gs, base);
    price_node_links(w, s);
    serve_receives(w, s, gs, base);
    end_step(w, s, gs);
  }

  // Sends: the outgoing port serves them in list order from when the rank
  // reached the step (the k-th one posted by the CPU at ready + k*o); each
  // is out of the port `after` it left it.
  void post_sends(const Window& w, std::uint64_t s, std::uint64_t gs, std::uint32_t base) {
    const double o = net_.overhead_s;
    for (int a = 0; a < p_; ++a) {
      const auto ua = static_cast<std::size_t>(a);
      if (!live_[ua]) continue;
      const std::size_t slot = w.slot(a, s);
      const std::uint32_t f = w.send_off[slot], l = w.send_off[slot + 1];
      const double r = ready_[ua];
      double t = r;
      for (std::uint32_t j = f; j < l; ++j) {
        const SendOp& x = w.sends[j];
        const double post = o > 0 ? r + static_cast<double>(j - f + 1) * o : r;
        const bool known = x.peer >= 0 && x.peer < p_;
        t = std::max(t, post) + (known ? hold(a, x.peer, x.bytes) : 0);
        out_end_[j - base] = t + (known ? after(a, x.peer) : 0);
        if (!x.matched) stall(a, gs, x.peer, WaitReason::no_matching_recv);
        else if (!live_[static_cast<std::size_t>(x.peer)]) stall(a, gs, x.peer, WaitReason::peer_stalled);
      }
      comm_end_[ua] = r + static_cast<double>(l - f) * o;
    }
  }

  // When a matched receive of step s by a rank that reached it at r can
  // start: the sender reached the step too (and its CPU posted the message).
  double enable_time(const Window& w, std::uint64_t s, const RecvOp& rv, double r) const {
    double enable = ready_[static_cast<std::size_t>(rv.peer)];
    if (net_.overhead_s > 0)
      enable += static_cast<double>(rv.match - w.send_off[w.slot(rv.peer, s)] + 1) * net_.overhead_s;
    return std::max(enable, r);
  }

  // With nodes of several ranks: when each network message of step s has
  // crossed its nodes' shared links (models/node_links.hpp, the rule the
  // two-level model walks with), into link_at_ by receive index; 0 for the
  // others, which no link delays.
  void price_node_links(const Window& w, std::uint64_t s) {
    const int k = net_.ranks_per_node;
    const std::uint32_t first = w.recv_off[w.slot(0, s)];
    link_at_.assign(w.recv_off[w.slot(0, s + 1)] - first, 0.0);
    if (k < 2) return;
    link_msgs_.clear();
    link_index_.clear();
    for (int b = 0; b < p_; ++b) {
      const auto ub = static_cast<std::size_t>(b);
      if (!live_[ub]) continue;
      const std::size_t slot = w.slot(b, s);
      for (std::uint32_t i = w.recv_off[slot]; i < w.recv_off[slot + 1]; ++i) {
        const RecvOp& rv = w.recvs[i];
        if (rv.match == kUnmatched || !live_[static_cast<std::size_t>(rv.peer)] ||
            rv.peer / k == b / k)
          continue;
        link_msgs_.push_back({rv.peer / k, b / k, enable_time(w, s, rv, ready_[ub]),
                              static_cast<double>(rv.bytes)});
        link_index_.push_back(i - first);
      }
    }
    if (link_msgs_.empty()) return;
    const std::vector<double> at = models::node_link_deliveries(link_msgs_, net_.alpha_s, net_.beta_s_per_B);
    for (std::size_t j = 0; j < at.size(); ++j) link_at_[link_index_[j]] = at[j];
  }

  // Rank b's matched receives of step s as (enable time, index) in order_:
  // a message is enabled once both ends reached the step (and the sender's
  // CPU posted it). Unmatched ones and those from stalled peers stall b.
  void order_receives(const Window& w, std::uint64_t s, std::uint64_t gs, int b) {
    const std::size_t slot = w.slot(b, s);
    const double r = ready_[static_cast<std::size_t>(b)];
    order_.clear();
    for (std::uint32_t i = w.recv_off[slot]; i < w.recv_off[slot + 1]; ++i) {
      const RecvOp& rv = w.recvs[i];
      if (rv.match == kUnmatched) {
        stall(b, gs, rv.peer, WaitReason::no_matching_send);
        continue;
      }
      const auto ua = static_cast<std::size_t>(rv.peer);
      if (!live_[ua]) {
        stall(b, gs, rv.peer, WaitReason::peer_stalled);
        continue;
      }
      order_.emplace_back(enable_time(w, s, rv, r), i);
    }
    if (order_.size() > 1) std::sort(order_.begin(), order_.end());
  }

  // Receives: the incoming port serves the step's messages first come first
  // served by the time both ends reached the step; delivery needs both ports.
  void serve_receives(const Window& w, std::uint64_t s, std::uint64_t gs, std::uint32_t base) {
    const double o = net_.overhead_s;
    for (int b = 0; b < p_; ++b) {
      const auto ub = static_cast<std::size_t>(b);
      if (!live_[ub]) continue;
      const std::size_t slot = w.slot(b, s);
      if (w.recv_off[slot] == w.recv_off[slot + 1]) continue;
      order_receives(w, s, gs, b);
      double t = ready_[ub];
      double cpu = comm_end_[ub];
      for (const auto& [enable, i] : order_) {
        const RecvOp& rv = w.recvs[i];
        t = std::max(t, enable) + hold(rv.peer, b, rv.bytes);
        const double delivered =
            std::max(std::max(t + after(rv.peer, b), out_end_[rv.match - base]),
                     link_at_[i - w.recv_off[w.slot(0, s)]]);
        cpu = std::max(cpu, delivered) + o;
        auto& sender_end = comm_end_[static_cast<std::size_t>(rv.peer)];
        sender_end = std::max(sender_end, delivered);
      }
      comm_end_[ub] = std::max(comm_end_[ub], cpu);
    }
  }

  // Step ends: ranks stalled in it stop; the others reduce, then idle for
  // noise (and, round-synchronous, wait for the latest).
  void end_step(const Window& w, std::uint64_t s, std::uint64_t gs) {
    double latest = 0;
    for (int r = 0; r < p_; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      if (!live_[ur]) continue;
      if (stalled_now_[ur]) {
        live_[ur] = 0;
        continue;
      }
      double t = comm_end_[ur] + static_cast<double>(w.reduced_bytes[w.slot(r, s)]) * net_.gamma_s_per_B;
      if (net_.noise_s > 0)
        t += -net_.noise_s * std::log1p(-counter_uniform(net_.seed, static_cast<std::uint64_t>(r), gs));
      ready_[ur] = t;
      latest = std::max(latest, t);
    }
    if (net_.round_synchronous)
      for (int r = 0; r < p_; ++r)
        if (live_[static_cast<std::size_t>(r)]) ready_[static_cast<std::size_t>(r)] = latest;
  }

  int p_;
  NetworkParams net_;
  models::PortRule port_{net_.intra_alpha_s, net_.intra_beta_s_per_B, net_.alpha_s,
                         net_.beta_s_per_B, net_.network_gap_s};
  std::vector<double> ready_;     // when the rank reached its current step
  std::vector<double> start_;     // when the rank entered the collective
  std::vector<double> comm_end_;  // this step: all its messages delivered
  std::vector<std::uint8_t> live_;         // reached the current step
  std::vector<std::uint8_t> stalled_now_;  // stuck in the current step
  std::vector<std::optional<Wait>> waits_;
  bool any_stall_ = false;
  std::vector<double> out_end_;  // per send of the current step: outgoing port done
  std::vector<std::pair<double, std::uint32_t>> order_;
  std::vector<double> link_at_;  // per receive of the current step: node links done
  std::vector<models::NodeMessage> link_msgs_;
  std::vector<std::uint32_t> link_index_;
};

SimResult run(int p, const ScheduleSource& source, const NetworkParams& net,
              const SimOptions& options, DataMover* data) {
  if (p < 1 || p > kMaxRanks)
    throw UsageError(fmt::format("bad rank count {} for the simulator (accepted: 1..{})", p, kMaxRanks));
  validate(net);
  WindowLimits limits = options.limits;
  if (limits.threads <= 0)
    limits.threads = static_cast<int>(std::min(models::hardware_threads(), 4u));
  CB_CHECK(options.arrival_s.empty() || options.arrival_s.size() == static_cast<std::size_t>(p),
           "{} arrivals for {} ranks", options.arrival_s.size(), p);
  if (!options.arrival_s.empty() && net.skew_s > 0)
    throw UsageError("--arrival and --sim-skew both set when ranks enter (give one)");
  Engine engine(p, net, options.arrival_s);
  WindowBuilder builder(p, source, limits, data != nullptr);
  SimResult res;
  std::uint64_t per_window = options.window_steps > 0
                                 ? options.window_steps
                                 : std::max<std::uint64_t>(1, options.window_rank_steps / static_cast<std::uint64_t>(p));
  std::uint64_t total = 1;  // known after the first window
  std::uint64_t begin = 0;
  while (begin < total) {
    const auto t0 = Clock::now();
    const Window* built = nullptr;
    try {
      built = &builder.build(begin, begin + per_window);
    } catch (const WindowTooLarge&) {
      res.build_wall_s += seconds_since(t0);
      if (per_window == 1) throw;  // one step alone is too large
      per_window /= 2;             // retry from the same step with fewer
      continue;
    }
    const Window& w = *built;
    res.build_wall_s += seconds_since(t0);
    total = w.total_steps;
    if (w.steps == 0) break;
    const auto t1 = Clock::now();
    engine.run_window(w, data);
    res.engine_wall_s += seconds_since(t1);
    res.messages += w.sends.size();
    ++res.windows;
    begin += w.steps;
  }
  engine.check_stalls();
  res.steps = total;
  res.time_s = engine.time();
  if (!options.arrival_s.empty()) res.finish_s = engine.finish();
  return res;
}

}  // namespace

ScheduleSource registry_source(const AlgorithmEntry& algo, const CollParams& params) {
  return [&algo, params](int rank, std::uint64_t begin, std::uint64_t end) {
    CollParams q = params;
    q.rank = rank;
    return make_schedule(algo, q, begin, end, std::move(spare_schedule()));
  };
}

SimResult simulate(int p, const ScheduleSource& source, const NetworkParams& net,
                   const SimOptions& options) {
  return run(p, source, net, options, nullptr);
}

SimResult simulate(const AlgorithmEntry& algo, const CollParams& params, const NetworkParams& net,
                   const SimOptions& options) {
  if (params.p < 1 || params.p > kMaxRanks)
    throw UsageError(fmt::format("bad rank count {} for the simulator (accepted: 1..{})", params.p, kMaxRanks));
  if (options.fast_path && options.arrival_s.empty() && cost_is_exact(algo, params, net)) {
    validate(net);
    const auto t0 = Clock::now();
    SimResult res;
    res.from_cost = true;
    res.time_s = closed_form_seconds(algo, params, net);
    res.build_wall_s = seconds_since(t0);
    return res;
  }
  return run(params.p, registry_source(algo, params), net, options, nullptr);
}

DataRun simulate_with_data(int p, const ScheduleSource& source, const NetworkParams& net,
                           std::span<const std::vector<std::byte>> inputs,
                           const SimOptions& options) {
  CB_CHECK(inputs.size() == static_cast<std::size_t>(p), "{} inputs for {} ranks", inputs.size(), p);
  DataMover mover(inputs);
  DataRun out;
  out.result = run(p, source, net, options, &mover);
  out.outputs = mover.outputs(source);
  return out;
}

DataRun simulate_with_data(const AlgorithmEntry& algo, const CollParams& params,
                           const NetworkParams& net, std::span<const std::vector<std::byte>> inputs,
                           const SimOptions& options) {
  if (params.p < 1 || params.p > kMaxRanks)
    throw UsageError(fmt::format("bad rank count {} for the simulator (accepted: 1..{})", params.p, kMaxRanks));
  return simulate_with_data(params.p, registry_source(algo, params), net, inputs, options);
}

}  // namespace cb::sim
