#include "harness/sweep/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "harness/sweep/interrupt.hpp"
#include "harness/sweep/stats.hpp"

namespace cb {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Rank 0: whether sampling may stop, given all samples so far.
bool enough(const std::vector<double>& all, const SamplingPlan& plan, double elapsed_s) {
  const auto n = static_cast<int>(all.size());
  if (plan.iterations > 0) return n >= plan.iterations;
  if (n >= plan.max_iterations) return true;
  if (n < plan.min_iterations) return false;
  return elapsed_s >= plan.budget_s || ci_within(summarize(all), plan.ci_rel);
}

// Between batches the ranks agree on a pending signal; a batch lasts at most
// about this long, so a signal ends a long configuration within a second.
constexpr double kCheckEvery_s = 0.5;

// Rank 0: the next batch size. Doubling keeps the CI checks (a sort each)
// to a logarithmic number, and the budget caps the batch so a large message
// does not overrun it by a whole doubling.
int next_batch(const std::vector<double>& all, const SamplingPlan& plan, double elapsed_s) {
  const auto n = static_cast<int>(all.size());
  const double per_sample = n > 0 ? elapsed_s / n : 0;
  double batch = 0;
  if (plan.iterations > 0) {
    batch = plan.iterations - n;
  } else {
    batch = std::max(plan.min_iterations - n, n);
    if (per_sample > 0) {
      const double left = std::max(plan.budget_s - elapsed_s, per_sample);
      batch = std::min(batch, std::max(1.0, left / per_sample));
    }
  }
  if (per_sample > 0) batch = std::min(batch, std::max(1.0, kCheckEvery_s / per_sample));
  const int most = (plan.iterations > 0 ? plan.iterations : plan.max_iterations) - n;
  return std::clamp(static_cast<int>(std::min(batch, 1e9)), 1, std::max(1, most));
}

}  // namespace

std::vector<double> time_samples(Operation& op, Group& group, const SamplingPlan& plan,
                                 bool& interrupted) {
  interrupted = false;
  // The agreement doubles as the warm-up's barrier.
  for (int i = 0; i < plan.warmup; ++i) {
    if (group.any(interrupt_signal() != 0)) {
      interrupted = true;
      return {};
    }
    op.run();
  }
  const bool root = group.rank() == 0;
  std::vector<double> all;
  std::vector<double> batch_times;
  const Clock::time_point start = Clock::now();
  // Rank 0 decides the next batch size and broadcasts it (0 = stop), so
  // every rank runs the same number of samples. The first batch is one
  // sample: it tells how long a sample takes, and so how many fit in
  // kCheckEvery_s.
  int batch = 1;
  for (;;) {
    batch_times.assign(static_cast<std::size_t>(batch), 0.0);
    for (int i = 0; i < batch; ++i) {
      group.barrier();
      const Clock::time_point t0 = Clock::now();
      op.run();
      batch_times[static_cast<std::size_t>(i)] = seconds_since(t0);
    }
    group.max_to_root(batch_times);
    std::int64_t next = 0;
    if (root) {
      all.insert(all.end(), batch_times.begin(), batch_times.end());
      const double elapsed = seconds_since(start);
      if (!enough(all, plan, elapsed)) next = next_batch(all, plan, elapsed);
    }
    batch = static_cast<int>(group.broadcast_from_root(next));
    if (batch == 0) break;
    if (group.any(interrupt_signal() != 0)) {
      interrupted = true;
      return {};
    }
  }
  return root ? all : std::vector<double>{};
}

}  // namespace cb
