#include "transports/mpi/pmpi/counters.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <bit>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "algorithms/registry.hpp"

namespace cb::pmpi {
namespace {

constexpr int kBuckets = 66;
constexpr int kColls = static_cast<int>(std::size(kAllCollectives));

struct Cell {
  std::atomic<std::uint64_t> calls{0}, bytes{0}, nanos{0};
};

struct Tables {
  std::array<std::array<std::array<Cell, kBuckets>, kMaxAlgorithmSlots>, kColls> calls;
  std::array<std::array<Cell, static_cast<int>(Fallback::count_)>, kColls> fallbacks;
};

Tables& tables() {
  static Tables t;
  return t;
}

// One thread's library calls (slot kMpiSlot) per (collective, size bucket),
// written only by that thread.
struct ThreadCells {
  struct Plain {
    std::atomic<std::uint64_t> calls{0}, bytes{0}, nanos{0};
  };
  std::array<std::array<Plain, kBuckets>, kColls> cells;
  // Calls that fell back, per reason: a remembered fallback repeats as often
  // as a remembered pass, so it is counted the same way.
  std::array<std::array<Plain, static_cast<int>(Fallback::count_)>, kColls> fallbacks;
};

struct Registry {
  std::mutex mutex;
  std::unordered_set<const Tally*> live;
  std::unordered_set<const ThreadCells*> threads;
};

Registry& registry() {
  static Registry r;
  return r;
}

// The counts of the tables plus every live tally, taken under the registry's
// lock (so no tally folds in twice or not at all meanwhile).
struct Totals {
  struct Sums {
    std::uint64_t calls = 0, bytes = 0, nanos = 0;
  };
  std::vector<Sums> cells = std::vector<Sums>(kColls * kMaxAlgorithmSlots * kBuckets);
  Sums& at(int coll, int slot, int bucket) {
    return cells[static_cast<std::size_t>((coll * kMaxAlgorithmSlots + slot) * kBuckets + bucket)];
  }
  std::vector<Sums> fell = std::vector<Sums>(kColls * static_cast<int>(Fallback::count_));
  Sums& fallback(int coll, int why) {
    return fell[static_cast<std::size_t>(coll * static_cast<int>(Fallback::count_) + why)];
  }
};

std::string slot_name(Collective coll, int slot) {
  if (slot == kMpiSlot) return "mpi";
  return std::string(algorithms_for(coll)[static_cast<std::size_t>(slot - 1)].name);
}

std::string bucket_label(int b) {
  if (b == 0) return "0 B";
  const std::uint64_t hi = std::uint64_t{1} << (b - 1);
  const auto human = [](std::uint64_t v) {
    if (v >= (1u << 30) && v % (1u << 30) == 0) return fmt::format("{}G", v >> 30);
    if (v >= (1u << 20) && v % (1u << 20) == 0) return fmt::format("{}M", v >> 20);
    if (v >= (1u << 10) && v % (1u << 10) == 0) return fmt::format("{}K", v >> 10);
    return fmt::format("{}", v);
  };
  if (b == 1) return "1 B";
  return fmt::format("{}..{} B", human((hi >> 1) + 1), human(hi));
}

}  // namespace

std::string_view to_string(Fallback f) {
  switch (f) {
    case Fallback::derived_datatype: return "non-contiguous datatype";
    case Fallback::datatype: return "datatype collbench does not reduce";
    case Fallback::op: return "op collbench lacks";
    case Fallback::user_op: return "user-defined op";
    case Fallback::intercommunicator: return "intercommunicator";
    case Fallback::in_place_form: return "unsupported MPI_IN_PLACE form";
    case Fallback::size_limit: return "size above COLLBENCH_MAX_BYTES";
    case Fallback::type_mismatch: return "send and receive sizes differ";
    case Fallback::no_algorithm: return "no such algorithm for this collective";
    case Fallback::model_choice: return "selection names an MPICH-only algorithm";
    case Fallback::irregular_counts: return "MPI_Reduce_scatter counts differ per rank";
    case Fallback::split_below_p: return "MPI_Reduce_scatter counts sum below p";
    case Fallback::count_: break;
  }
  return "?";
}

int size_bucket(std::size_t bytes) {
  if (bytes == 0) return 0;
  return static_cast<int>(std::bit_width(bytes - 1)) + 1;
}

namespace {

void bump(std::atomic<std::uint64_t>& v, std::uint64_t by) {
  v.store(v.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

// Folds a thread's cells into the tables when the thread ends (the main
// thread's at exit, after MPI_Finalize's report), under the registry's lock.
struct ThreadCellsOwner {
  ThreadCells* cells = nullptr;
  ~ThreadCellsOwner() {
    if (!cells) return;
    std::lock_guard<std::mutex> lock(registry().mutex);
    for (int coll = 0; coll < kColls; ++coll)
      for (int b = 0; b < kBuckets; ++b) {
        const ThreadCells::Plain& from = cells->cells[coll][b];
        Cell& to = tables().calls[coll][kMpiSlot][b];
        to.calls.fetch_add(from.calls.load(std::memory_order_relaxed), std::memory_order_relaxed);
        to.bytes.fetch_add(from.bytes.load(std::memory_order_relaxed), std::memory_order_relaxed);
        to.nanos.fetch_add(from.nanos.load(std::memory_order_relaxed), std::memory_order_relaxed);
      }
    for (int coll = 0; coll < kColls; ++coll)
      for (int f = 0; f < static_cast<int>(Fallback::count_); ++f) {
        const ThreadCells::Plain& from = cells->fallbacks[coll][f];
        Cell& to = tables().fallbacks[coll][f];
        to.calls.fetch_add(from.calls.load(std::memory_order_relaxed), std::memory_order_relaxed);
        to.bytes.fetch_add(from.bytes.load(std::memory_order_relaxed), std::memory_order_relaxed);
      }
    registry().threads.erase(cells);
    delete cells;
  }
};

// initial-exec (as comm_state.cpp): one load per call. The owner, which has
// a destructor and so a guard per access, is touched once per thread.
thread_local ThreadCells* t_cells __attribute__((tls_model("initial-exec"))) = nullptr;
thread_local ThreadCellsOwner t_cells_owner;

ThreadCells& thread_cells() {
  if (!t_cells) {
    auto* made = new ThreadCells;
    {
      std::lock_guard<std::mutex> lock(registry().mutex);
      registry().threads.insert(made);
    }
    t_cells_owner.cells = made;
    t_cells = made;
  }
  return *t_cells;
}

}  // namespace

void count_library_call(Collective coll, std::size_t bytes, std::uint64_t nanos) {
  ThreadCells::Plain& c = thread_cells().cells[static_cast<int>(coll)][size_bucket(bytes)];
  bump(c.calls, 1);
  bump(c.bytes, bytes);
  if (nanos) bump(c.nanos, nanos);
}

void count_fallback(Collective coll, Fallback why, std::size_t bytes) {
  ThreadCells::Plain& c = thread_cells().fallbacks[static_cast<int>(coll)][static_cast<int>(why)];
  bump(c.calls, 1);
  bump(c.bytes, bytes);
}

struct TallyAccess {
  static void add_to(const Tally& t, Totals& out) {
    Totals::Sums& s = out.at(static_cast<int>(t.coll_), t.slot_, size_bucket(t.bytes_));
    const std::uint64_t n = t.calls_.load(std::memory_order_relaxed);
    s.calls += n;
    s.bytes += n * t.bytes_;
    s.nanos += t.nanos_.load(std::memory_order_relaxed);
  }
  static void fold(const Tally& t) {
    const std::uint64_t n = t.calls_.load(std::memory_order_relaxed);
    if (n == 0) return;
    Cell& c = tables().calls[static_cast<int>(t.coll_)][t.slot_][size_bucket(t.bytes_)];
    c.calls.fetch_add(n, std::memory_order_relaxed);
    c.bytes.fetch_add(n * t.bytes_, std::memory_order_relaxed);
    c.nanos.fetch_add(t.nanos_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
};

namespace {
Totals totals() {
  Totals out;
  std::lock_guard<std::mutex> lock(registry().mutex);
  for (int coll = 0; coll < kColls; ++coll)
    for (int s = 0; s < kMaxAlgorithmSlots; ++s)
      for (int b = 0; b < kBuckets; ++b) {
        const Cell& c = tables().calls[coll][s][b];
        Totals::Sums& t = out.at(coll, s, b);
        t.calls = c.calls.load(std::memory_order_relaxed);
        t.bytes = c.bytes.load(std::memory_order_relaxed);
        t.nanos = c.nanos.load(std::memory_order_relaxed);
      }
  for (int coll = 0; coll < kColls; ++coll)
    for (int f = 0; f < static_cast<int>(Fallback::count_); ++f) {
      const Cell& c = tables().fallbacks[coll][f];
      Totals::Sums& t = out.fallback(coll, f);
      t.calls = c.calls.load(std::memory_order_relaxed);
      t.bytes = c.bytes.load(std::memory_order_relaxed);
    }
  for (const Tally* t : registry().live) TallyAccess::add_to(*t, out);
  for (const ThreadCells* cells : registry().threads)
    for (int coll = 0; coll < kColls; ++coll) {
      for (int b = 0; b < kBuckets; ++b) {
        const ThreadCells::Plain& c = cells->cells[coll][b];
        Totals::Sums& t = out.at(coll, kMpiSlot, b);
        t.calls += c.calls.load(std::memory_order_relaxed);
        t.bytes += c.bytes.load(std::memory_order_relaxed);
        t.nanos += c.nanos.load(std::memory_order_relaxed);
      }
      for (int f = 0; f < static_cast<int>(Fallback::count_); ++f) {
        const ThreadCells::Plain& c = cells->fallbacks[coll][f];
        Totals::Sums& t = out.fallback(coll, f);
        t.calls += c.calls.load(std::memory_order_relaxed);
        t.bytes += c.bytes.load(std::memory_order_relaxed);
      }
    }
  return out;
}
}  // namespace

Tally::Tally(Collective coll, int slot, std::size_t bytes) : coll_(coll), slot_(slot), bytes_(bytes) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().live.insert(this);
}

Tally::~Tally() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  TallyAccess::fold(*this);
  registry().live.erase(this);
}

std::uint64_t calls(Collective coll, int slot) {
  Totals t = totals();
  std::uint64_t n = 0;
  for (int b = 0; b < kBuckets; ++b) n += t.at(static_cast<int>(coll), slot, b).calls;
  return n;
}

std::uint64_t fallbacks(Collective coll, Fallback why) {
  return totals().fallback(static_cast<int>(coll), static_cast<int>(why)).calls;
}

std::string report() {
  Totals totals_now = totals();
  std::string out =
      "# collbench-pmpi counters (this rank; time = wall time inside the call)\n"
      "# collective      algorithm   size                 calls          bytes    time(us)  "
      "avg(us)\n";
  for (Collective coll : kAllCollectives) {
    const int slots = 1 + static_cast<int>(algorithms_for(coll).size());
    for (int s = 0; s < slots && s < kMaxAlgorithmSlots; ++s) {
      for (int b = 0; b < kBuckets; ++b) {
        const Totals::Sums& c = totals_now.at(static_cast<int>(coll), s, b);
        if (c.calls == 0) continue;
        const double us = static_cast<double>(c.nanos) / 1e3;
        out += fmt::format("  {:<15} {:<11} {:<16} {:>9} {:>14} {:>11.1f} {:>8.3f}\n",
                           to_string(coll), slot_name(coll, s), bucket_label(b), c.calls,
                           c.bytes, us, us / static_cast<double>(c.calls));
      }
    }
  }
  out += "# calls that went to the MPI library instead (fallbacks)\n";
  bool any = false;
  for (Collective coll : kAllCollectives) {
    for (int f = 0; f < static_cast<int>(Fallback::count_); ++f) {
      const Totals::Sums& c = totals_now.fallback(static_cast<int>(coll), f);
      if (c.calls == 0) continue;
      any = true;
      out += fmt::format("  {:<15} {:<42} {:>9} calls {:>14} bytes\n", to_string(coll),
                         to_string(static_cast<Fallback>(f)), c.calls, c.bytes);
    }
  }
  if (!any) out += "  none\n";
  return out;
}

}  // namespace cb::pmpi
