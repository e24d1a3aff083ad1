#include "models/parallel.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace cb::models {
namespace {

struct Batch {
  const std::function<void(unsigned)>* task;
  unsigned running = 0;  // calls a pool thread has taken and not finished
};

struct Item {
  Batch* batch;
  unsigned t;
};

// Never destroyed, its threads detached: a process that exits while a
// loop runs (an interrupted sweep's _exit) must not join or destroy them.
class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool;
    return *pool;
  }

  void run(unsigned first, unsigned last, const std::function<void(unsigned)>& task,
           const std::function<void()>& caller_share) {
    Batch batch{&task};
    {
      std::lock_guard lock(mutex_);
      grow(last - first);
      for (unsigned t = first; t < last; ++t) queue_.push_back({&batch, t});
    }
    work_.notify_all();
    caller_share();
    std::unique_lock lock(mutex_);
    // What no pool thread has taken yet is withdrawn: the shared index
    // counter is drained, so those calls would find nothing to do.
    std::erase_if(queue_, [&](const Item& i) { return i.batch == &batch; });
    done_.wait(lock, [&] { return batch.running == 0; });
  }

 private:
  // Caps the pool: callers ask for at most a few threads per core.
  static constexpr unsigned kMaxThreads = 64;

  void grow(unsigned want) {
    want = std::min(want, kMaxThreads);
    while (threads_ < want) {
      std::thread([this] { serve(); }).detach();
      ++threads_;
    }
  }

  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      work_.wait(lock, [&] { return !queue_.empty(); });
      const Item item = queue_.front();
      queue_.pop_front();
      ++item.batch->running;
      lock.unlock();
      (*item.batch->task)(item.t);
      lock.lock();
      if (--item.batch->running == 0) done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, done_;
  std::deque<Item> queue_;
  unsigned threads_ = 0;
};

}  // namespace

unsigned hardware_threads() {
  static const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

void run_on_pool(unsigned first, unsigned last, const std::function<void(unsigned)>& task,
                 const std::function<void()>& caller_share) {
  Pool::get().run(first, last, task, caller_share);
}

}  // namespace cb::models
