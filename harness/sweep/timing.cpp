#include "harness/sweep/timing.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "transports/contract/arrival.hpp"
#include "harness/sweep/clock_sync.hpp"
#include "harness/sweep/window_wait.hpp"
#include "transports/contract/interrupt.hpp"
#include "transports/contract/stats.hpp"

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
// does not overrun it by a whole doubling; no batch lasts much over cap_s.
int next_batch(const std::vector<double>& all, const SamplingPlan& plan, double elapsed_s,
               double cap_s) {
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
  if (per_sample > 0) batch = std::min(batch, std::max(1.0, cap_s / per_sample));
  const int most = (plan.iterations > 0 ? plan.iterations : plan.max_iterations) - n;
  return std::clamp(static_cast<int>(std::min(batch, 1e9)), 1, std::max(1, most));
}

// --- window start ---------------------------------------------------------

// Ping-pongs per rank and synchronization; the minimum-RTT one is kept.
constexpr int kSyncExchanges = 10;
// Clocks are synchronized again before a batch once this much time has
// passed, which bounds what drift between hosts can add (clock_sync.hpp),
// or kResyncCostShare^-1 times what the last synchronization took, if that is
// longer: over 2 ms links one of 8 ranks takes 0.3 s, and doing it every
// second would spend a third of the run on it.
constexpr double kResyncEvery_s = 1.0;
constexpr double kResyncCostShare = 0.05;
// Margins: before the first window of a batch, time for rank 0's broadcast
// of the start to reach every rank; between windows, kWindowFactor times the
// longest sample of the last batch plus a pad. The start margin and the pad
// double after a batch that had a late rank, up to kMaxSlack times.
constexpr std::int64_t kStartMargin_ns = 500'000;
constexpr std::int64_t kWindowPad_ns = 200'000;
constexpr double kWindowFactor = 2;
constexpr double kMaxSlack = 64;
// A rank's late flag of a sample, reduced by max over ranks: it reached its
// wait after the window opened (the windows were too short: the next
// batch's margins double), or it polled its wait and still started late
// (it lost its core, window_wait.hpp: longer windows would not help).
constexpr double kLateFromWait = 1;
constexpr double kLateForWindow = 2;
// Samples tried, at most, per sample wanted, before late ones end sampling.
constexpr int kMaxTriesPerSample = 4;

// Lowers this thread's timer slack (default 50 µs) while it lives, so a
// sleep until a window start ends within microseconds of it.
class FineTimerSlack {
 public:
  FineTimerSlack() : old_(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)) {
    if (old_ > 0) prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // 1 µs
  }
  ~FineTimerSlack() {
    if (old_ > 0) prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(old_), 0, 0, 0);
  }
  FineTimerSlack(const FineTimerSlack&) = delete;
  FineTimerSlack& operator=(const FineTimerSlack&) = delete;

 private:
  int old_;
};

// The last clock synchronization of this process, kept across
// configurations: a sweep measures hundreds of them on one group, and
// synchronizing for each cost more than the sampling on the testbed. Keyed
// by the group's size alone because the runner's groups are always the
// first p ranks of the world (runner.cpp, Group::first_ranks), so a group of
// the same size is the same ranks, and every one of them took part in the
// synchronization rank 0 remembers.
struct ClockSync {
  int group_size = 0;  // 0: none yet
  ClockOffset clock;   // this rank's offset; on rank 0 the largest RTT
  Clock::time_point at;
  double took_s = 0;   // how long it took (rank 0)
};
// Per thread, not per process: the tests run ranks as threads of one
// process (a rank is one thread of its own process otherwise).
ClockSync& last_sync() {
  thread_local ClockSync sync;
  return sync;
}

// A rank's state of the window start across the batches of one
// configuration (used on rank 0 only).
struct WindowState {
  double slack = 1;       // margin multiplier, doubled after a late batch
  double last_max_s = 0;  // longest sample of the last batch
};

std::int64_t rounded_ns(double ns) { return static_cast<std::int64_t>(std::llround(ns)); }

// The samples of one window batch as a rank saw them: own finish - the
// agreed start per sample into `times`, its late flag (kLateForWindow,
// kLateFromWait or 0) into `late`;
// with a log, each sample's target and actual start (CLOCK_MONOTONIC ns).
struct WindowLog {
  std::vector<std::int64_t> delay_ns, target_ns, start_ns;
};

// Runs one batch of `batch` samples with a window start; fills `times` and
// `late` (this rank's late flags) with this rank's view. Under a
// pattern, sample i waits for the window plus this rank's delay of
// iteration first + i.
void window_batch(Operation& op, Group& group, WindowState& w, int batch,
                  const ArrivalPattern* pattern, std::uint64_t first, std::vector<double>& times,
                  std::vector<double>& late, WindowLog* log) {
  const bool root = group.rank() == 0;
  // Collective decisions come from rank 0.
  ClockSync& sync = last_sync();
  const bool due = sync.group_size != group.size() ||
                   seconds_since(sync.at) >= std::max(kResyncEvery_s, sync.took_s / kResyncCostShare);
  if (group.broadcast_from_root(root && due) != 0) {
    const Clock::time_point t0 = Clock::now();
    sync.clock = synchronize_clocks(group, kSyncExchanges);
    sync.group_size = group.size();
    sync.at = Clock::now();
    sync.took_s = seconds_since(t0);
  }
  std::int64_t window_ns = 0;
  if (root) {
    // The longest sample already holds any tail the last batch saw, so the
    // slack grows only the pad: a doubling of multi-second windows would
    // idle the ranks for minutes.
    window_ns = rounded_ns(kWindowFactor * w.last_max_s * 1e9 +
                           w.slack * static_cast<double>(kWindowPad_ns));
  }
  window_ns = group.broadcast_from_root(window_ns);
  // The start last, so its margin covers one broadcast: about log2(p) hops
  // of half a round trip each, taken as a round trip each for queueing.
  std::int64_t start_ns = 0;
  if (root) {
    const double hops = std::ceil(std::log2(static_cast<double>(group.size()))) + 1;
    start_ns = monotonic_now_ns() +
               rounded_ns(w.slack * (hops * static_cast<double>(sync.clock.rtt_ns) +
                                     static_cast<double>(kStartMargin_ns)));
  }
  start_ns = group.broadcast_from_root(start_ns);

  // This rank's delays, drawn before the first window opens.
  std::vector<std::int64_t> delay_ns(static_cast<std::size_t>(batch), 0);
  if (pattern)
    for (int i = 0; i < batch; ++i)
      delay_ns[static_cast<std::size_t>(i)] = rounded_ns(
          pattern->delays(group.size(), first + static_cast<std::uint64_t>(i))
              [static_cast<std::size_t>(group.rank())] * 1e9);
  if (log) {
    log->delay_ns = delay_ns;
    log->target_ns.assign(static_cast<std::size_t>(batch), 0);
    log->start_ns.assign(static_cast<std::size_t>(batch), 0);
  }
  const WaitPolicy policy = group.wait_policy();
  const std::int64_t offset = root ? 0 : sync.clock.offset_ns;
  for (int i = 0; i < batch; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    const std::int64_t opens = start_ns + offset + static_cast<std::int64_t>(i) * window_ns;
    const std::int64_t enter = opens + delay_ns[ui];
    const bool was_late = monotonic_now_ns() > enter;
    wait_until_ns(enter, policy);
    const std::int64_t started = monotonic_now_ns();
    if (log) {
      log->target_ns[ui] = enter;
      log->start_ns[ui] = started;
    }
    op.run();
    const std::int64_t finish = monotonic_now_ns();
    times[ui] = static_cast<double>(finish - opens) * 1e-9;
    late[ui] = was_late                               ? kLateForWindow
               : started_late(enter, started, policy) ? kLateFromWait
                                                      : 0.0;
  }
}

// One batch of `batch` samples: per-rank times into `times` (and with a
// window start, then the late flags, one reduction for both: max = any
// rank late).
void run_batch(Operation& op, Group& group, StartMethod start, WindowState& w, int batch,
               const ArrivalPattern* pattern, std::uint64_t first, std::vector<double>& times,
               std::vector<double>& late, WindowLog* log) {
  times.assign(static_cast<std::size_t>(batch), 0.0);
  if (start == StartMethod::back_to_back) {
    // Cumulative finish times since this rank's barrier exit; rank 0 turns
    // their max over ranks into per-iteration samples (back_to_back_samples).
    group.barrier();
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < batch; ++i) {
      op.run();
      times[static_cast<std::size_t>(i)] = seconds_since(t0);
    }
    return;
  }
  if (start == StartMethod::window) {
    late.assign(static_cast<std::size_t>(batch), 0.0);
    window_batch(op, group, w, batch, pattern, first, times, late, log);
    times.insert(times.end(), late.begin(), late.end());
    return;
  }
  for (int i = 0; i < batch; ++i) {
    group.barrier();
    const Clock::time_point t0 = Clock::now();
    op.run();
    times[static_cast<std::size_t>(i)] = seconds_since(t0);
  }
}

// Appends a batch's log lines to PREFIX.<rank> (after the timed samples):
// seed,op,sample,delay_ns,target_ns,start_ns,late,offset_ns,rtt_ns (seed: the
// plan's; op: the operation's position among those taking turns). target and
// start are this rank's CLOCK_MONOTONIC; offset is its estimated offset to
// rank 0's clock (0 on rank 0) and rtt the round trip that estimate came from
// (rank 0: the largest).
void append_log(const std::string& prefix, Group& group, std::uint64_t seed, std::size_t op,
                std::uint64_t first, const WindowLog& log, const std::vector<double>& late) {
  const std::string path = prefix + "." + std::to_string(group.rank());
  // Never through a link (planted after the plan's check): O_NOFOLLOW.
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "a");
  if (!f) {
    if (fd >= 0) ::close(fd);
    throw UsageError("cannot append to --arrival-log file " + path + ": " + std::strerror(errno));
  }
  std::fseek(f, 0, SEEK_END);
  if (std::ftell(f) == 0)
    std::fprintf(f, "seed,op,sample,delay_ns,target_ns,start_ns,late,offset_ns,rtt_ns\n");
  const ClockSync& sync = last_sync();
  const std::int64_t offset = group.rank() == 0 ? 0 : sync.clock.offset_ns;
  for (std::size_t i = 0; i < log.start_ns.size(); ++i)
    std::fprintf(f, "%llu,%zu,%llu,%lld,%lld,%lld,%d,%lld,%lld\n",
                 static_cast<unsigned long long>(seed), op,
                 static_cast<unsigned long long>(first + i),
                 static_cast<long long>(log.delay_ns[i]), static_cast<long long>(log.target_ns[i]),
                 static_cast<long long>(log.start_ns[i]), late[i] > 0 ? 1 : 0,
                 static_cast<long long>(offset), static_cast<long long>(sync.clock.rtt_ns));
  std::fclose(f);
}

// Rank 0: the longest of a batch's `finish` times (per sample, the latest
// finish after the window opened; late flags follow at [n, 2n)) over its
// on-time samples, or over all when none was: it sizes the next windows, and
// a sample that started late by a lost core would stretch them for nothing.
double longest_on_time(const std::vector<double>& finish, std::size_t n) {
  double on_time = 0, all = 0;
  bool any_on_time = false;
  for (std::size_t i = 0; i < n; ++i) {
    all = std::max(all, finish[i]);
    if (finish[n + i] > 0) continue;
    any_on_time = true;
    on_time = std::max(on_time, finish[i]);
  }
  return any_on_time ? on_time : all;
}

// Rank 0: a window batch's slowest-rank times into `kept` or, where a rank
// was late, `late_times`; a batch with a rank late for its window widens
// the next windows.
void sort_window_batch(const std::vector<double>& times, std::size_t n, WindowState& w,
                       std::vector<double>& kept, std::vector<double>& late_times) {
  bool windows_short = false;
  w.last_max_s = longest_on_time(times, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (times[n + i] > 0) {
      windows_short = windows_short || times[n + i] >= kLateForWindow;
      late_times.push_back(times[i]);
    } else {
      kept.push_back(times[i]);
    }
  }
  if (windows_short) w.slack = std::min(2 * w.slack, kMaxSlack);
}

// Every rank's own times of a batch (finish - agreed start), everywhere:
// [rank][sample]. Taken before the max reduction overwrites them.
std::vector<std::vector<double>> gather_times(Group& group, const std::vector<double>& mine,
                                              int batch) {
  const auto bytes = group.allgather_bytes(std::as_bytes(
      std::span<const double>(mine.data(), static_cast<std::size_t>(batch))));
  std::vector<std::vector<double>> out(bytes.size());
  for (std::size_t r = 0; r < bytes.size(); ++r) {
    out[r].resize(bytes[r].size() / sizeof(double));
    std::memcpy(out[r].data(), bytes[r].data(), out[r].size() * sizeof(double));
  }
  return out;
}

// Rank 0, back-to-back start: a batch's max-over-ranks cumulative finish
// times into per-iteration samples (each one's finish minus the previous
// one's; the first counts from the barrier exit).
std::vector<double> back_to_back_samples(const std::vector<double>& cumulative) {
  std::vector<double> out(cumulative.size());
  double previous = 0;
  for (std::size_t i = 0; i < cumulative.size(); ++i) {
    out[i] = cumulative[i] - previous;
    previous = cumulative[i];
  }
  return out;
}

// Rank 0, back-to-back start: `next` raised to a loop of
// kBackToBackMinBatch, within what -n leaves.
int back_to_back_batch(int next, const std::vector<double>& all, const SamplingPlan& plan) {
  const int most = (plan.iterations > 0 ? plan.iterations : plan.max_iterations) -
                   static_cast<int>(all.size());
  return std::max(next, std::min(kBackToBackMinBatch, std::max(1, most)));
}

// One operation's sampling as a sequence of collective turns, so that
// several operations can take turns on one group (time_interleaved). Every
// decision comes from rank 0 by broadcast, so every rank agrees on when a
// sampler is done. With a `pattern`, each sample's ranks enter at their
// delays (window start only).
class Sampler {
 public:
  Sampler(Operation& op, Group& group, const SamplingPlan& plan, double batch_cap_s,
          const ArrivalPattern* pattern, std::size_t op_index)
      : op_(op), group_(group), plan_(plan), batch_cap_s_(batch_cap_s), op_index_(op_index),
        most_tries_(kMaxTriesPerSample *
                        (plan.iterations > 0 ? plan.iterations : plan.max_iterations) +
                    16),
        pattern_(pattern),
        batch_(plan.start == StartMethod::back_to_back ? back_to_back_batch(1, {}, plan) : 1) {}

  bool active() const { return !done_ && !interrupted_; }
  bool interrupted() const { return interrupted_; }

  // One turn, collective: the warm-up (first turn only), then one batch of
  // samples. The first batch is one sample: it tells how long a sample
  // takes, and so how many fit in batch_cap_s (and, with a window start,
  // how long a window must be). Time spent in the sampler's own turns is
  // what the time budget counts (the warm-up excepted).
  void turn() {
    if (!warmed_up_) {
      warmed_up_ = true;
      // The agreement doubles as the warm-up's barrier.
      for (int i = 0; i < plan_.warmup; ++i) {
        if (group_.any(interrupt_signal() != 0)) {
          interrupted_ = true;
          return;
        }
        op_.run();
      }
    }
    const Clock::time_point t0 = Clock::now();
    const bool root = group_.rank() == 0;
    const bool window = plan_.start == StartMethod::window;
    WindowLog log;
    WindowLog* const logp = window && pattern_ && !plan_.arrival_log.empty() ? &log : nullptr;
    run_batch(op_, group_, plan_.start, w_, batch_, pattern_, index_, batch_times_, batch_late_,
              logp);
    std::vector<std::vector<double>> per_rank;
    if (window && pattern_) per_rank = gather_times(group_, batch_times_, batch_);
    if (logp) append_log(plan_.arrival_log, group_, plan_.seed, op_index_, index_, log, batch_late_);
    group_.max_to_root(batch_times_);
    std::int64_t next = 0;
    if (root) {
      tried_ += batch_;
      if (window) {
        sync_s_ = std::max(sync_s_, 0.5e-9 * static_cast<double>(last_sync().clock.rtt_ns));
        if (pattern_) {
          sort_arrival_batch(per_rank);
        } else {
          sort_window_batch(batch_times_, static_cast<std::size_t>(batch_), w_, all_, late_times_);
        }
      } else if (plan_.start == StartMethod::back_to_back) {
        const std::vector<double> samples = back_to_back_samples(batch_times_);
        all_.insert(all_.end(), samples.begin(), samples.end());
      } else {
        all_.insert(all_.end(), batch_times_.begin(), batch_times_.end());
      }
      const double elapsed = spent_s_ + seconds_since(t0);
      const int tries = tries_allowed(elapsed);
      if (!enough(all_, plan_, elapsed) && tried_ < tries) {
        next = next_batch(all_, plan_, elapsed, batch_cap_s_);
        // A window batch's samples may all be late: never past the tries allowed.
        if (window) next = std::min<std::int64_t>(next, tries - tried_);
        if (plan_.start == StartMethod::back_to_back) next = back_to_back_batch(next, all_, plan_);
      }
    }
    index_ += static_cast<std::uint64_t>(batch_);
    // Rank 0 decides the next batch size and broadcasts it (0 = stop), so
    // every rank runs the same number of samples.
    batch_ = static_cast<int>(group_.broadcast_from_root(next));
    if (batch_ == 0) done_ = true;
    else if (group_.any(interrupt_signal() != 0)) interrupted_ = true;
    spent_s_ += seconds_since(t0);
  }

  // The samples (rank 0; empty elsewhere and when interrupted).
  TimedSamples result() {
    TimedSamples out;
    out.interrupted = interrupted_;
    if (interrupted_ || group_.rank() != 0) return out;
    out.late = static_cast<int>(late_times_.size());
    out.clock_sync_s = sync_s_;
    // Every sample late: keep them, so the row still says how long it took
    // (and late == iterations says how to read it).
    const bool keep_late = all_.empty();
    out.times_s = keep_late ? std::move(late_times_) : std::move(all_);
    out.after_last_s = keep_late ? std::move(late_after_) : std::move(after_);
    out.early_in_s = keep_late ? std::move(late_early_) : std::move(early_);
    return out;
  }

 private:
  // Rank 0, under a pattern: each sample's step time, time after the last
  // arrival and early ranks' time held, from every rank's finish relative
  // to the agreed start and the delays of that iteration; kept or late as
  // sort_window_batch sorts them. The next windows must cover the latest
  // finish, delays included.
  void sort_arrival_batch(const std::vector<std::vector<double>>& per_rank) {
    const auto n = static_cast<std::size_t>(batch_);
    const std::size_t p = per_rank.size();
    std::vector<double> steps = batch_times_;  // then the late flags, as sort_window_batch reads
    std::vector<double> finish(p);
    const std::uint64_t first = index_;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t r = 0; r < p; ++r) finish[r] = per_rank[r][i];
      const std::vector<double> d = pattern_->delays(static_cast<int>(p), first + i);
      const ArrivalTimes t = arrival_times(d, finish);
      steps[i] = t.step_s;
      const bool late = batch_times_[n + i] > 0;
      (late ? late_after_ : after_).push_back(t.after_last_s);
      if (t.early_in_s) (late ? late_early_ : early_).push_back(*t.early_in_s);
    }
    sort_window_batch(steps, n, w_, all_, late_times_);
    w_.last_max_s = longest_on_time(batch_times_, n);
  }

  // Samples that may be tried: kMaxTriesPerSample per wanted sample + 16;
  // under a time budget, once it is spent, per min_iterations only (a
  // budget asks for time, not for samples: where nearly every sample is
  // late, e.g. spinning ranks that keep losing their cores, sampling would
  // otherwise go on for max_iterations).
  int tries_allowed(double elapsed_s) const {
    if (plan_.iterations > 0 || elapsed_s < plan_.budget_s) return most_tries_;
    return std::min(most_tries_, kMaxTriesPerSample * plan_.min_iterations + 16);
  }

  Operation& op_;
  Group& group_;
  const SamplingPlan& plan_;
  double batch_cap_s_;
  std::size_t op_index_;
  int most_tries_;  // a run of late windows must end: at most this many samples tried
  const ArrivalPattern* pattern_;  // null: every rank enters at once
  bool warmed_up_ = false, done_ = false, interrupted_ = false;
  int batch_;  // the next batch's size (1 first: it sizes the batches; back-to-back more)
  int tried_ = 0;
  std::uint64_t index_ = 0;  // the next sample's iteration number (the pattern's draw)
  double spent_s_ = 0;
  double sync_s_ = 0;  // rank 0: the largest clock-sync accuracy bound seen
  WindowState w_;
  std::vector<double> all_;
  std::vector<double> late_times_;  // window: samples with a late rank (rank 0)
  std::vector<double> after_, early_, late_after_, late_early_;  // pattern (rank 0)
  std::vector<double> batch_times_, batch_late_;
};

// With interleaved timing a batch lasts at most this long, so the
// operations take turns many times a second: the VM's speed drifts over
// seconds (mode_probe.hpp), and every operation should see each spell.
constexpr double kInterleavedBatch_s = 0.02;

// The operations take turns, one batch of at most batch_cap_s each, until
// every one has its samples; on a signal every entry is interrupted.
std::vector<TimedSamples> take_turns(std::span<Operation* const> ops, Group& group,
                                     const SamplingPlan& plan, double batch_cap_s) {
  std::optional<FineTimerSlack> slack;
  if (plan.start == StartMethod::window) slack.emplace();
  // Under a pattern every operation is sampled twice, taking turns: with
  // the pattern, and without it for the no-skew reference of the same run.
  const ArrivalPattern* pattern = plan.arrival && plan.arrival->active() ? plan.arrival.get() : nullptr;
  std::vector<Sampler> samplers;
  samplers.reserve(2 * ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i)
    samplers.emplace_back(*ops[i], group, plan, batch_cap_s, pattern, i);
  if (pattern)
    for (std::size_t i = 0; i < ops.size(); ++i)
      samplers.emplace_back(*ops[i], group, plan, batch_cap_s, nullptr, i);
  for (bool any_active = true; any_active;) {
    any_active = false;
    for (Sampler& s : samplers) {
      if (!s.active()) continue;
      s.turn();
      if (s.interrupted()) {
        std::vector<TimedSamples> stopped(ops.size());
        for (TimedSamples& t : stopped) t.interrupted = true;
        return stopped;
      }
      any_active = any_active || s.active();
    }
  }
  std::vector<TimedSamples> out;
  out.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) out.push_back(samplers[i].result());
  if (pattern)
    for (std::size_t i = 0; i < ops.size(); ++i)
      out[i].noskew_s = samplers[ops.size() + i].result().times_s;
  return out;
}

}  // namespace

TimedSamples time_samples(Operation& op, Group& group, const SamplingPlan& plan) {
  Operation* const one[] = {&op};
  return std::move(take_turns(one, group, plan, kCheckEvery_s).front());
}

std::vector<TimedSamples> time_interleaved(std::span<Operation* const> ops, Group& group,
                                           const SamplingPlan& plan) {
  return take_turns(ops, group, plan, kInterleavedBatch_s);
}

std::vector<double> time_samples(Operation& op, Group& group, const SamplingPlan& plan,
                                 bool& interrupted) {
  TimedSamples s = time_samples(op, group, plan);
  interrupted = s.interrupted;
  return std::move(s.times_s);
}

}  // namespace cb
