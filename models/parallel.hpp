// A small work-sharing loop for models/ (fit's per-configuration lines,
// crossover grouping, bootstrap resamples): the callers' results are indexed
// by i, so they do not depend on the number of threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <type_traits>
#include <vector>

namespace cb::models {

// Runs fn(i) for i in [0, n) on up to `threads` threads (the caller's
// thread is one of them), each taking the next index as it finishes one
// (items differ a lot in cost), and rethrows the first exception. A callable
// taking (i, t) also gets its worker t in [0, threads), for per-thread
// scratch that would otherwise be allocated per item.
template <class Fn>
void for_each_index(std::size_t n, unsigned threads, const Fn& fn) {
  threads = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1u), n));
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
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  if (threads > 0) work(0);
  for (std::thread& th : pool) th.join();
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
