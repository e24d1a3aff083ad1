// The window-based start (--start window, harness/sweep/timing.cpp) and its
// clock synchronization (clock_sync.hpp), over a Group of threads: every
// property checked holds by construction, whatever the machine's load, so
// nothing here is a timing bound that could flake.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "transports/contract/row.hpp"
#include "harness/sweep/clock_sync.hpp"
#include "harness/sweep/timing.hpp"

namespace cb {
namespace {

// What the ranks of a ThreadGroup share: one exchange slot for collectives
// (every rank deposits, the last one in wakes the others) and mailboxes.
struct Shared {
  explicit Shared(int n) : size(n), slots(static_cast<std::size_t>(n)) {}
  int size;
  std::mutex m;
  std::condition_variable cv;
  long generation = 0;
  int arrived = 0;
  std::vector<std::vector<double>> slots;
  std::vector<std::vector<double>> last;  // the slots of the finished generation
  std::map<std::pair<int, int>, std::deque<std::vector<std::byte>>> mail;
  int root_barriers = 0;  // barrier() calls on rank 0 (only rank 0's thread writes it)
};

class ThreadGroup final : public Group {
 public:
  ThreadGroup(Shared& s, int rank) : s_(s), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return s_.size; }
  WaitPolicy wait_policy() const override { return WaitPolicy::sleep; }
  bool oversubscribed() const override { return true; }
  int ranks_on_node() const override { return s_.size; }
  void barrier() override {
    if (rank_ == 0) ++s_.root_barriers;
    exchange({});
  }
  void max_to_root(std::span<double> values) override {
    const auto all = exchange(std::vector<double>(values.begin(), values.end()));
    if (rank_ != 0) return;
    for (const auto& v : all)
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::max(values[i], v[i]);
  }
  std::uint64_t sum_to_root(std::uint64_t value) override {
    std::uint64_t sum = 0;
    for (const auto& v : exchange({static_cast<double>(value)}))
      sum += static_cast<std::uint64_t>(v[0]);
    return sum;
  }
  bool any(bool flag, std::optional<WaitPolicy>) override {
    bool out = false;
    for (const auto& v : exchange({flag ? 1.0 : 0.0})) out = out || v[0] != 0;
    return out;
  }
  std::int64_t broadcast_from_root(std::int64_t value) override {
    double bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    const double root = exchange({bits})[0][0];
    std::int64_t out = 0;
    std::memcpy(&out, &root, sizeof out);
    return out;
  }
  std::vector<std::vector<std::byte>> allgather_bytes(std::span<const std::byte>) override {
    throw std::logic_error("not needed here");
  }
  void send_bytes(int to, std::span<const std::byte> bytes) override {
    const std::lock_guard lock(s_.m);
    s_.mail[{rank_, to}].emplace_back(bytes.begin(), bytes.end());
    s_.cv.notify_all();
  }
  void receive_bytes(int from, std::span<std::byte> bytes) override {
    std::unique_lock lock(s_.m);
    auto& box = s_.mail[{from, rank_}];
    s_.cv.wait(lock, [&] { return !box.empty(); });
    if (box.front().size() != bytes.size()) throw std::logic_error("size mismatch");
    std::memcpy(bytes.data(), box.front().data(), bytes.size());
    box.pop_front();
  }
  std::unique_ptr<Group> first_ranks(int, WaitPolicy) override {
    throw std::logic_error("not needed here");
  }

 private:
  // Every rank's values, indexed by rank, once all have arrived.
  std::vector<std::vector<double>> exchange(std::vector<double> mine) {
    std::unique_lock lock(s_.m);
    const long gen = s_.generation;
    s_.slots[static_cast<std::size_t>(rank_)] = std::move(mine);
    if (++s_.arrived == s_.size) {
      s_.last = s_.slots;
      s_.arrived = 0;
      ++s_.generation;
      s_.cv.notify_all();
    } else {
      s_.cv.wait(lock, [&] { return s_.generation != gen; });
    }
    return s_.last;
  }

  Shared& s_;
  int rank_;
};

// Runs f(group) on `n` threads, one rank each.
template <class F>
void on_ranks(int n, F f) {
  Shared shared(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&shared, r, &f] {
      ThreadGroup g(shared, r);
      f(g);
    });
  for (auto& t : threads) t.join();
}

// An operation whose rank `slow_rank` sleeps `ms` per run, and `long_ms`
// instead on its run number `long_run` (counting from 0, warm-up included).
class SleepOp final : public Operation {
 public:
  SleepOp(bool slow, int ms, int long_run = -1, int long_ms = 0)
      : slow_(slow), ms_(ms), long_run_(long_run), long_ms_(long_ms) {}
  void write_input(std::span<const std::byte>) override {}
  void read_output(std::span<std::byte>) override {}
  void run() override {
    const int ms = runs_++ == long_run_ ? long_ms_ : ms_;
    if (slow_ && ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

 private:
  bool slow_;
  int ms_, long_run_, long_ms_;
  int runs_ = 0;
};

TEST(ClockSync, SharedClockGivesAnOffsetWithinHalfTheRoundTrip) {
  // One clock for all threads: the peer reads it between rank 0's two reads,
  // so the kept midpoint is off by at most half its round trip.
  std::vector<ClockOffset> got(4);
  on_ranks(4, [&](Group& g) {
    got[static_cast<std::size_t>(g.rank())] = synchronize_clocks(g, 5);
  });
  EXPECT_EQ(got[0].offset_ns, 0);
  EXPECT_GT(got[0].rtt_ns, 0);
  for (int r = 1; r < 4; ++r) {
    const ClockOffset& c = got[static_cast<std::size_t>(r)];
    EXPECT_GT(c.rtt_ns, 0) << r;
    EXPECT_LE(c.rtt_ns, got[0].rtt_ns) << r;  // rank 0 keeps the largest
    EXPECT_LE(2 * std::abs(c.offset_ns), c.rtt_ns + 1) << r;
  }
}

TEST(WindowStart, EverySampleHoldsTheSlowestRanksRun) {
  // Rank 2 sleeps 2 ms per run: a sample is the max over ranks of (finish -
  // agreed start), and a rank starts its run no earlier than the start, so
  // every kept sample is at least 2 ms.
  SamplingPlan plan;
  plan.start = StartMethod::window;
  plan.iterations = 6;
  plan.warmup = 1;
  TimedSamples root;
  on_ranks(3, [&](Group& g) {
    SleepOp op(g.rank() == 2, 2);
    TimedSamples s = time_samples(op, g, plan);
    if (g.rank() == 0) root = std::move(s);
    else EXPECT_TRUE(s.times_s.empty());
  });
  EXPECT_FALSE(root.interrupted);
  ASSERT_EQ(root.times_s.size(), 6u) << "late: " << root.late;
  for (double t : root.times_s) EXPECT_GE(t, 2e-3);
}

TEST(WindowStart, ARankLateForItsWindowIsCountedAndItsSamplesDropped) {
  // Run 2 of rank 1 (the first of the second batch: warm-up 0, first batch 1
  // sample) takes 300 ms, far longer than the windows sized from ~1 ms
  // samples, so rank 1 reaches the rest of that batch's windows after they
  // opened: those samples are dropped and counted, and sampling goes on
  // until 5 on-time samples are kept, the 300 ms one among them.
  SamplingPlan plan;
  plan.start = StartMethod::window;
  plan.iterations = 5;
  plan.warmup = 0;
  TimedSamples root;
  on_ranks(2, [&](Group& g) {
    SleepOp op(g.rank() == 1, 1, 1, 300);
    TimedSamples s = time_samples(op, g, plan);
    if (g.rank() == 0) root = std::move(s);
  });
  EXPECT_GE(root.late, 1);
  ASSERT_EQ(root.times_s.size(), 5u);
  EXPECT_GE(*std::max_element(root.times_s.begin(), root.times_s.end()), 0.3);
}

TEST(WindowStart, BarrierStartReportsNoLateSamples) {
  SamplingPlan plan;
  plan.iterations = 3;
  TimedSamples root;
  on_ranks(2, [&](Group& g) {
    SleepOp op(false, 0);
    TimedSamples s = time_samples(op, g, plan);
    if (g.rank() == 0) root = std::move(s);
  });
  EXPECT_EQ(root.times_s.size(), 3u);
  EXPECT_EQ(root.late, 0);
}

// Logs its id on rank 0 for every run and sleeps 1 ms, so a ~20 ms
// interleaved batch holds at most 20 runs whatever the machine's load.
class LoggingOp final : public Operation {
 public:
  LoggingOp(int id, bool root, std::vector<int>& log) : id_(id), root_(root), log_(log) {}
  void write_input(std::span<const std::byte>) override {}
  void read_output(std::span<std::byte>) override {}
  void run() override {
    if (root_) log_.push_back(id_);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

 private:
  int id_;
  bool root_;
  std::vector<int>& log_;
};

TEST(Interleaved, OperationsTakeTurnsAndEachGetsItsSamples) {
  // --order interleaved: a drift of the machine's speed must reach every
  // algorithm of a size, so no operation may run all its samples in one go.
  SamplingPlan plan;
  plan.iterations = 50;
  plan.warmup = 1;
  std::vector<int> log;
  std::vector<TimedSamples> root;
  on_ranks(2, [&](Group& g) {
    LoggingOp a(0, g.rank() == 0, log), b(1, g.rank() == 0, log);
    Operation* ops[] = {&a, &b};
    std::vector<TimedSamples> s = time_interleaved(ops, g, plan);
    if (g.rank() == 0) root = std::move(s);
  });
  ASSERT_EQ(root.size(), 2u);
  for (const TimedSamples& t : root) {
    EXPECT_FALSE(t.interrupted);
    EXPECT_EQ(t.times_s.size(), 50u);
    for (double x : t.times_s) EXPECT_GE(x, 1e-3);
  }
  ASSERT_EQ(log.size(), 2u * 51);  // samples and one warm-up each
  // Once one operation has all its samples the other's last batches follow
  // each other (a loaded machine makes its batches smaller, so that tail may
  // be long): only runs while both still take turns are bounded.
  int switches = 0, longest = 0, run = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    const bool same = i > 0 && log[i] == log[i - 1];
    if (i > 0 && !same) {
      ++switches;
      longest = std::max(longest, run);
    }
    run = same ? run + 1 : 1;
  }
  EXPECT_GE(switches, 5);      // 50 samples in batches of 1, then at most 20
  EXPECT_LE(longest, 1 + 20);  // a warm-up plus one batch at most
}

// Runs time_samples on `n` thread ranks; rank 0's samples and its barriers.
TimedSamples sample_on(int n, const SamplingPlan& plan, int slow_rank, int ms, int& barriers) {
  TimedSamples root;
  Shared shared(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      ThreadGroup g(shared, r);
      SleepOp op(r == slow_rank, ms);
      TimedSamples s = time_samples(op, g, plan);
      if (r == 0) root = std::move(s);
    });
  for (auto& t : threads) t.join();
  barriers = shared.root_barriers;
  return root;
}

// --start back-to-back: the iterations of a batch follow each other with no
// barrier between them (one per batch of at least kBackToBackMinBatch, where
// the barrier start has one per sample), and a sample is the slowest rank's
// time per iteration: rank 1 sleeps 2 ms per run, so every sample is at
// least 2 ms though rank 0 (which reports) runs in no time.
TEST(BackToBackStart, OneBarrierPerBatchAndTheSlowestRanksIterations) {
  SamplingPlan plan;
  plan.iterations = 2 * kBackToBackMinBatch;
  plan.warmup = 1;
  plan.start = StartMethod::back_to_back;
  int barriers = 0;
  const TimedSamples b2b = sample_on(3, plan, 1, 2, barriers);
  EXPECT_FALSE(b2b.interrupted);
  ASSERT_EQ(b2b.times_s.size(), static_cast<std::size_t>(plan.iterations));
  for (double t : b2b.times_s) EXPECT_GE(t, 2e-3);
  EXPECT_LE(barriers, 2);
  plan.start = StartMethod::barrier;
  const TimedSamples each = sample_on(3, plan, 1, 2, barriers);
  ASSERT_EQ(each.times_s.size(), static_cast<std::size_t>(plan.iterations));
  EXPECT_GE(barriers, plan.iterations);
  // -n below the batch's minimum: exactly -n samples.
  plan.start = StartMethod::back_to_back;
  plan.iterations = 3;
  EXPECT_EQ(sample_on(2, plan, 1, 1, barriers).times_s.size(), 3u);
}

TEST(StartMethod, ParsesItsNamesAndRefusesOthersNamingThem) {
  EXPECT_EQ(parse_start_method("barrier"), StartMethod::barrier);
  EXPECT_EQ(parse_start_method("window"), StartMethod::window);
  EXPECT_EQ(parse_start_method("back-to-back"), StartMethod::back_to_back);
  EXPECT_EQ(to_string(StartMethod::window), "window");
  EXPECT_EQ(to_string(StartMethod::back_to_back), "back-to-back");
  try {
    parse_start_method("Window");
    FAIL() << "accepted 'Window'";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unknown --start 'Window' (valid: barrier, window, back-to-back)");
  }
}

}  // namespace
}  // namespace cb
