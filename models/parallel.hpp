// A small work-sharing loop for models/ and the simulator (fit's
// per-configuration lines, crossover grouping, bootstrap resamples, the
// simulator's window parts): the callers' results are indexed by i, so they
// do not depend on the number of threads.
//
// The threads are one process-wide pool, started on first use and kept: a
// `map` over thousands of (ranks, size) cells used to create and join a
// thread per cell, and under load each clone/join waited for a core.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <type_traits>
#include <vector>

namespace cb::models {

// std::thread::hardware_concurrency(), at least 1, asked once per process:
// glibc answers it by opening and reading /sys/devices/system/cpu/online on
// every call, and `map` used to ask once per simulated cell.
unsigned hardware_threads();

// Runs task(t) on a pool thread for each t in [first, last), and waits for
// every call that started. A call still queued when the caller has finished
// its own share is withdrawn instead of waited for, so nested loops (a
// pooled task that itself calls for_each_index) cannot deadlock on a pool
// whose threads are all busy. Tasks must not throw.
void run_on_pool(unsigned first, unsigned last, const std::function<void(unsigned)>& task,
                 const std::function<void()>& caller_share);

// Runs fn(i) for i in [0, n) on up to `threads` threads (the caller's
// thread is one of them), each taking the next index as it finishes one
// (items differ a lot in cost), and rethrows the first exception. A callable
// taking (i, t) also gets its worker t in [0, threads), for per-thread
// scratch that would otherwise be allocated per item.
template <class Fn>
void for_each_index(std::size_t n, unsigned threads, const Fn& fn) {
  threads = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1u), n));
  if (threads == 0) return;
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  const auto work = [&](unsigned t) {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) {
        if constexpr (std::is_invocable_v<const Fn&, std::size_t, unsigned>)
          fn(i, t);
        else
          fn(i);
      }
    } catch (...) {
      errors[t] = std::current_exception();
      next = n;
    }
  };
  if (threads == 1)
    work(0);
  else
    run_on_pool(1, threads, work, [&] { work(0); });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// fn(i) for i in [0, n), handed out `block` indices at a time: for many
// cheap items (rows of a results file), where one shared counter step per
// item would cost as much as the item.
template <class Fn>
void for_each_in_blocks(std::size_t n, unsigned threads, const Fn& fn,
                        std::size_t block = 4096) {
  for_each_index((n + block - 1) / block, threads, [&](std::size_t b) {
    for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) fn(i);
  });
}

}  // namespace cb::models
