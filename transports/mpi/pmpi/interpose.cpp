// The intercepted MPI entry points of libcollbench-pmpi.so. Everything but
// MPI_Init, MPI_Init_thread, MPI_Finalize, the four collectives and
// MPI_Reduce_scatter goes to the MPI library untouched (MPI_Type_free too,
// counted on its way: PassMemo in comm_state.hpp).
//
// Reentrancy: while the library works inside an intercepted call (a comm
// split, the wait policy's MPI_Allreduce, the schedule's point-to-point), a
// thread-local flag is set and every intercepted entry point it reaches
// forwards straight to PMPI_, uncounted. Most of that code calls PMPI_
// itself; the flag covers the shared transport code that calls MPI_.
#include <dlfcn.h>
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "algorithms/collective.hpp"
#include "algorithms/registry.hpp"
#include "models/io/input_file.hpp"
#include "models/mpich_selection.hpp"
#include "transports/mpi/pmpi/collbench_pmpi.h"
#include "transports/mpi/pmpi/comm_state.hpp"
#include "transports/mpi/pmpi/config.hpp"
#include "transports/mpi/pmpi/counters.hpp"
#include "transports/mpi/pmpi/mpi_types.hpp"
#include "transports/mpi/pmpi/selection.hpp"
#include "transports/mpi/pmpi/settings.hpp"

namespace cb::pmpi {
namespace {

struct Library {
  std::once_flag once;
  std::atomic<bool> ready{false};
  Config config;
  int world_rank = 0;
  std::atomic<unsigned> generation{1};
  // Bumped with every change of the settings and every MPI_Type_free: a
  // remembered call (PassMemo) holds in the epoch it was made in only, where
  // its datatype handles still name the types they named then.
  std::atomic<unsigned> memo_epoch{1};
  std::array<std::array<std::atomic<bool>, static_cast<int>(Fallback::count_)>,
             std::size(kAllCollectives)>
      noticed{};
};

// A plain global, not a function-local static: no guard check per call.
Library g_library;
Library& lib() { return g_library; }

// initial-exec: see comm_state.cpp.
thread_local bool t_inside __attribute__((tls_model("initial-exec"))) = false;

struct Inside {
  Inside() { t_inside = true; }
  ~Inside() { t_inside = false; }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

// The intercepted entry point's name, for notices: MPI_Allreduce, ...
std::string mpi_name(Collective coll) {
  return "MPI_" + std::string(collective_spec(coll).mpich_name);
}

// Whether every rank of MPI_COMM_WORLD read the same settings and read them
// without error (settings.hpp): one all-reduce of each rank's hashes, and
// of the lowest rank that failed. When not, one rank says why in one line
// (the first that failed, or rank 0 naming a variable that differs) and
// every rank learns it, so all stop together instead of waiting for ever on
// a peer that stopped or runs another schedule.
bool settings_agree(const std::string& error) {
  const auto hashes = setting_hashes();
  constexpr std::size_t n = kSettingNames.size();
  std::array<unsigned long long, n + 1> mine{}, lo{}, hi{};
  for (std::size_t i = 0; i < n; ++i) mine[i] = hashes[i];
  int size = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  mine[n] = error.empty() ? static_cast<unsigned long long>(size)
                          : static_cast<unsigned long long>(lib().world_rank);
  PMPI_Allreduce(mine.data(), lo.data(), n + 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  PMPI_Allreduce(mine.data(), hi.data(), n + 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  for (std::size_t i = 0; i < n; ++i)
    if (lo[i] != hi[i]) {
      if (lib().world_rank == 0)
        std::fprintf(stderr,
                     "collbench-pmpi: %s differs between the ranks (rank 0 has %s); give every "
                     "rank the same COLLBENCH_* settings\n",
                     kSettingNames[i], describe_setting(i).c_str());
      return false;
    }
  if (lo[n] == static_cast<unsigned long long>(size)) return true;
  if (lo[n] == static_cast<unsigned long long>(lib().world_rank))
    std::fprintf(stderr, "collbench-pmpi: %s\n", error.c_str());
  return false;
}

// `auto` prices the library's own choice (do no harm, config.hpp): MPICH's
// default tree, compiled into libmpich, is read from the library file that
// defines PMPI_Init (about 40 MB, once per rank, only when auto is used).
// Without it auto runs its pick as before, and the start-up line says so.
void load_library_tree(Config& config) {
  Dl_info info{};
  std::string why;
  if (dladdr(reinterpret_cast<void*>(&PMPI_Init), &info) == 0 || info.dli_fname == nullptr) {
    why = "cannot locate the MPI library";
  } else {
    try {
      const std::string bytes = io::read_input_file(info.dli_fname, "libmpich", {.max_line = 0});
      config.library_tree = models::find_mpich_default_tree(bytes);
      if (!config.library_tree) why = fmt::format("no default selection tree in {}", info.dli_fname);
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  config.auto_line += config.library_tree
                          ? "; the library's own choice is priced from MPICH's default tree"
                          : fmt::format("; the library's choice cannot be priced ({}): no fallback",
                                        why);
}

// at_init: called from MPI_Init / MPI_Init_thread, which every rank of
// MPI_COMM_WORLD calls, so the ranks can agree on the settings there. A
// first use after an MPI_Init the library did not see cannot (a collective
// on a sub-communicator: the other ranks are not there): then each rank
// checks its own settings, and rank 0 alone speaks, as before the agreement.
void setup(bool at_init = false) {
  std::call_once(lib().once, [at_init] {
    Inside guard;
    PMPI_Comm_rank(MPI_COMM_WORLD, &lib().world_rank);
    std::string error;
    try {
      lib().config = read_config();
    } catch (const std::exception& e) {
      error = e.what();
    }
    const bool ok = at_init ? settings_agree(error) : error.empty();
    if (!ok) {
      if (!at_init && lib().world_rank == 0)
        std::fprintf(stderr, "collbench-pmpi: %s\n", error.c_str());
      PMPI_Finalize();
      std::exit(2);
    }
    if (!lib().config.auto_line.empty()) {
      load_library_tree(lib().config);
      if (lib().world_rank == 0)
        std::fprintf(stderr, "collbench-pmpi: %s\n", lib().config.auto_line.c_str());
    }
    try {
      create_keyval();
    } catch (const std::exception& e) {
      if (lib().world_rank == 0) std::fprintf(stderr, "collbench-pmpi: %s\n", e.what());
      PMPI_Finalize();
      std::exit(2);
    }
    lib().ready.store(true, std::memory_order_release);
  });
}

// Whether calls should be looked at (MPI initialised through a path we did
// not intercept still gets the library).
bool activate() {
  int init = 0, fin = 0;
  PMPI_Initialized(&init);
  PMPI_Finalized(&fin);
  if (!init || fin) return false;
  setup();
  return lib().ready.load(std::memory_order_acquire);
}
// Inlined into every entry point: once set up, one load.
[[gnu::always_inline]] inline bool active() {
  return lib().ready.load(std::memory_order_acquire) || activate();
}

[[noreturn]] void fatal(Collective coll, const std::exception& e) {
  std::fprintf(stderr, "collbench-pmpi: %s failed: %s\n", mpi_name(coll).c_str(), e.what());
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

class Stopwatch {
 public:
  Stopwatch() : on_(lib().config.report) {
    if (on_) t0_ = std::chrono::steady_clock::now();
  }
  std::uint64_t nanos() const {
    if (!on_) return 0;
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - t0_)
                                          .count());
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point t0_;
};

// A call the library passes to MPI's own collective (the `mpi` slot),
// counted with S = bytes, timed only when the report is on.
template <class Pmpi>
[[gnu::always_inline]] inline int pass_to_library(Collective coll, std::size_t bytes, Pmpi&& pmpi) {
  const Stopwatch watch;
  const int rc = pmpi();
  count_library_call(coll, bytes, watch.nanos());
  return rc;
}

// The remembered call with these arguments on `comm` (PassMemo), or nullptr:
// then the call takes the whole path (intercept). Irregular MPI_Reduce_scatter
// counts are compared by that entry point.
[[gnu::always_inline]] inline const PassMemo* remembered_pass(CommState* st, const PassKey& key,
                                                              unsigned epoch) {
  if (!st) return nullptr;
  const PassMemo& m = st->pass[static_cast<std::size_t>(key.point)];
  if (m.epoch != epoch || !(m.key == key)) return nullptr;
  return &m;
}

// A remembered call again: to MPI's own collective, counted as the first
// was (a pass, or a fallback of its reason, whose notice the first gave).
template <class Pmpi>
[[gnu::always_inline]] inline int repeat(Collective coll, const PassMemo& m, Pmpi&& pmpi) {
  if (m.fallback) {
    count_fallback(coll, *m.fallback, m.bytes);
    return pmpi();
  }
  return pass_to_library(coll, m.bytes, pmpi);
}

// One intercepted call, in collbench's terms.
struct Call {
  Collective coll = Collective::allreduce;
  const char* function = nullptr;  // for notices; nullptr: mpi_name(coll)
  MPI_Comm comm = MPI_COMM_NULL;
  const void* send = nullptr;  // nullptr when in place
  void* recv = nullptr;
  bool in_place = false;
  DataType dtype = DataType::uint8;
  ReduceOp op = ReduceOp::sum;
  std::size_t count = 0;  // collbench's count of dtype elements
  std::size_t elem = 1;
  std::optional<Fallback> why;  // decided before the communicator is looked at
  std::string detail;
  // The call's S (bytes) when it cannot be run: the recv side's
  // element count per rank times its type size, as far as MPI can say.
  int mpi_count = 0;
  MPI_Datatype mpi_type = MPI_DATATYPE_NULL;
  // MPI_Reduce_scatter whose recvcounts are the balanced split of their sum
  // (run_padded): the counts and their sum; `count` is then the largest.
  const int* split_counts = nullptr;
  std::size_t split_total = 0;
  bool split_below_p = false;  // split_total < p: some ranks receive nothing
  // The raw arguments it is remembered by when it goes to MPI's own
  // collective (PassMemo), MPI_Reduce_scatter's recvcounts, and the memo
  // epoch read before the datatypes were looked at.
  PassKey pass;
  const int* recvcounts = nullptr;
  unsigned epoch = 0;
};

std::size_t library_bytes(const Call& c) {
  int size = 0, p = 1;
  if (PMPI_Type_size(c.mpi_type, &size) != MPI_SUCCESS || size < 0) return 0;
  if (c.split_counts) return c.split_total * static_cast<std::size_t>(size);
  const bool per_rank = collective_spec(c.coll).size_per_rank;
  if (per_rank && c.comm != MPI_COMM_NULL) PMPI_Comm_size(c.comm, &p);
  return static_cast<std::size_t>(c.mpi_count) * static_cast<std::size_t>(size) *
         static_cast<std::size_t>(per_rank ? p : 1);
}

// Remembers `c` on `st` as going to MPI's own collective (`why`: as that
// fallback), counted with S = bytes on every repeat.
void remember(CommState& st, const Call& c, std::optional<Fallback> why, std::size_t bytes) {
  PassMemo& m = st.pass[static_cast<std::size_t>(c.pass.point)];
  m.key = c.pass;
  m.epoch = c.epoch;
  m.bytes = bytes;
  m.fallback = why;
  if (c.pass.irregular)
    m.counts.assign(c.recvcounts, c.recvcounts + st.p);
  else
    m.counts.clear();
}

template <class Pmpi>
int fall_back(CommState& st, const Call& c, Fallback why, const std::string& detail, Pmpi&& pmpi) {
  const std::size_t bytes = library_bytes(c);
  remember(st, c, why, bytes);
  count_fallback(c.coll, why, bytes);
  // Rank 0 of MPI_COMM_WORLD alone speaks, once per (collective, reason), so
  // a job shows each notice once however many communicators hit it.
  auto& flag = lib().noticed[static_cast<int>(c.coll)][static_cast<int>(why)];
  if (lib().world_rank == 0 && !flag.exchange(true))
    std::fprintf(stderr,
                 "collbench-pmpi: notice: %s falls back to the MPI library: %s%s%s (shown once; "
                 "COLLBENCH_REPORT=1 counts every fallback)\n",
                 c.function ? c.function : mpi_name(c.coll).c_str(), std::string(to_string(why)).c_str(),
                 detail.empty() ? "" : ", ", detail.c_str());
  return pmpi();
}

// A balanced split of fewer elements than ranks (OSU's osu_reduce_scatter
// below p elements: counts 1, ..., 1, 0, ..., 0), padded, is the block
// schedule of one element per rank, a shape neither the selection file nor
// `auto` decided on: the sweep a selection comes from, and the model, time
// MPI_Reduce_scatter_block with every rank a block. MPICH's
// MPI_Reduce_scatter is faster on such counts than on one element per rank
// (ranks with nothing to receive), the padded schedule is not. So these
// calls go to the library, as the selection does wherever nothing was
// measured faster; an algorithm the user named still runs padded.
bool left_to_the_library(Mode mode, const CallKey& key) {
  return key.split_below_p && (mode == Mode::automatic || mode == Mode::selection);
}

void choose(const CommState& st, const CallKey& key, Entry& e) {
  const Choice& choice = lib().config.choice[static_cast<int>(key.coll)];
  if (left_to_the_library(choice.mode, key)) {
    e.fallback = Fallback::split_below_p;
    e.detail = fmt::format("{} every rank a block; a named algorithm (e.g. {}=naive) runs "
                           "these calls padded",
                           choice.mode == Mode::selection ? "the sweep behind the selection timed"
                                                          : "auto's model prices",
                           env_name(key.coll));
    return;
  }
  switch (choice.mode) {
    case Mode::mpi:
      e.slot = kMpiSlot;
      return;
    case Mode::named:
      e.slot = choice.slot;
      if (e.slot < 0) {
        e.fallback = Fallback::no_algorithm;
        e.detail = fmt::format("COLLBENCH_ALGO={}", choice.name);
      }
      return;
    case Mode::automatic:
      e.slot = predicted_best(lib().config, key.coll, st.p, key.dtype, key.op, key.in_place,
                              key.count);
      return;
    case Mode::selection: {
      const CallShape shape{key.coll, st.p, key.count, element_size(key.dtype), key.in_place};
      const std::string mpich = select_mpich_algorithm(*lib().config.selection, shape);
      const std::string ours = mpich.empty() ? std::string() : collbench_algorithm(key.coll, mpich);
      e.slot = ours.empty() ? -1 : ours == "mpi" ? kMpiSlot : algorithm_slot(key.coll, ours);
      if (e.slot < 0) {
        e.fallback = Fallback::model_choice;
        e.detail = mpich.empty() ? "no branch of the file matches" : mpich;
      }
      return;
    }
  }
}

std::size_t align64(std::size_t n) { return (n + 63) / 64 * 64; }

Entry& entry_for(CommState& st, const CallKey& key) {
  const unsigned gen = lib().generation.load(std::memory_order_acquire);
  if (st.generation != gen) {
    st.last = nullptr;
    st.cache.clear();
    st.generation = gen;
  }
  if (st.last && st.last_key == key) return *st.last;
  if (const auto it = st.cache.find(key); it != st.cache.end()) {
    st.last_key = key;
    st.last = it->second.get();
    return *st.last;
  }
  if (st.cache.size() >= kMaxEntries) {
    st.last = nullptr;
    st.cache.clear();
  }
  auto e = std::make_unique<Entry>();
  choose(st, key, *e);
  if (e->slot > 0) {
    const CollParams params{key.coll, st.p,  st.rank,      key.count,
                            key.dtype, key.op, key.in_place, 0};
    const AlgorithmEntry& algo = algorithms_for(key.coll)[static_cast<std::size_t>(e->slot - 1)];
    const Schedule sched = make_schedule(algo, params);
    e->plan = plan_schedule(sched);
    std::size_t at = 0;
    for (std::size_t bytes : e->plan.scratch_bytes) {
      e->scratch_offsets.push_back(at);
      at += align64(bytes);
    }
    e->staging_offset = at;
    at += align64(e->plan.staging_bytes);
    e->input_bytes = sched.input_count() * e->plan.elem;
    if (e->plan.writes_input) {
      e->input_copy_offset = at;
      at += align64(e->input_bytes);
    }
    e->arena_bytes = at;
    const std::size_t bytes =
        std::max(sched.input_count(), sched.output_count()) * e->plan.elem;
    e->tally = std::make_unique<Tally>(key.coll, e->slot, bytes);
  }
  Entry* made = st.cache.emplace(key, std::move(e)).first->second.get();
  st.last_key = key;
  st.last = made;
  return *made;
}

void run_entry(CommState& st, const Entry& e, const Call& c) {
  if (st.arena.size() < e.arena_bytes) st.arena = AlignedBuffer(e.arena_bytes);
  const MpiSchedulePlan& plan = e.plan;
  st.bases.resize(plan.slot_count());
  auto* recv = static_cast<std::byte*>(c.recv);
  const std::size_t block = c.count * c.elem;
  if (c.in_place) {
    const InPlaceLayout lay = in_place_layout(c.coll, st.p, st.rank, c.count);
    st.bases[kInput] = recv + lay.input_offset * c.elem;
    st.bases[kOutput] = recv + lay.output_offset * c.elem;
  } else {
    // The plan only writes the input view when it says so; then it gets a copy.
    st.bases[kInput] = const_cast<std::byte*>(static_cast<const std::byte*>(c.send));
    st.bases[kOutput] = recv;
  }
  for (std::size_t k = 0; k < e.scratch_offsets.size(); ++k)
    st.bases[kScratch0 + k] = st.arena.data() + e.scratch_offsets[k];
  st.bases[plan.staging_slot()] = st.arena.data() + e.staging_offset;
  if (plan.writes_input) {
    std::byte* copy = st.arena.data() + e.input_copy_offset;
    if (e.input_bytes) std::memcpy(copy, c.send, e.input_bytes);
    st.bases[kInput] = copy;
  }
  if (st.requests.size() < plan.max_posts) st.requests.resize(plan.max_posts);
  run_plan(plan, st.bases, st.comm, st.wait, st.requests);
  // MPI puts an in-place reduce-scatter's block at the start of the buffer;
  // collbench's in-place layout leaves it at the rank's own block.
  const CollectiveSpec& spec = collective_spec(c.coll);
  if (c.in_place && spec.library_in_place_output_at_start && spec.in_place_output_at_own_block &&
      st.rank > 0 && block)
    std::memmove(recv, recv + static_cast<std::size_t>(st.rank) * block, block);
}

// MPI_Reduce_scatter with the balanced split of n elements (the first n mod p
// ranks get one more, as OSU's osu_reduce_scatter and most programs divide a
// vector): the block schedule of the largest count, on a copy of the input
// whose shorter blocks are padded with zeros. Each real element is reduced
// by the same steps in the same order as MPI_Reduce_scatter_block's schedule
// would, so every rank gets the same bits; the padding is reduced and
// dropped. It costs one copy of the input and one of the rank's block.
void run_padded(CommState& st, const Entry& e, const Call& c) {
  const std::size_t p = static_cast<std::size_t>(st.p);
  const std::size_t block = c.count * c.elem;
  const std::size_t padded_at = e.arena_bytes;
  const std::size_t out_at = padded_at + align64(p * block);
  const std::size_t need = out_at + align64(block);
  if (st.arena.size() < need) st.arena = AlignedBuffer(need);
  std::byte* padded = st.arena.data() + padded_at;
  if (block) std::memset(padded, 0, p * block);
  const auto* in = static_cast<const std::byte*>(c.send);
  std::size_t from = 0;
  for (std::size_t q = 0; q < p; ++q) {
    const std::size_t bytes = static_cast<std::size_t>(c.split_counts[q]) * c.elem;
    if (bytes) std::memcpy(padded + q * block, in + from, bytes);
    from += bytes;
  }
  Call inner = c;
  inner.send = padded;
  inner.recv = st.arena.data() + out_at;
  run_entry(st, e, inner);
  const std::size_t mine =
      static_cast<std::size_t>(c.split_counts[static_cast<std::size_t>(st.rank)]) * c.elem;
  if (mine) std::memcpy(c.recv, inner.recv, mine);
}

template <class Pmpi>
int intercept(const Call& c, Pmpi&& pmpi) {
  const Choice& choice = lib().config.choice[static_cast<int>(c.coll)];
  if (c.comm == MPI_COMM_NULL) return pmpi();  // MPI reports the error
  try {
    if (choice.mode == Mode::mpi) {
      // Remembered like auto's passes, so that its repeats cost what theirs
      // do: the `mpi` setting is the control "MPI's call behind the library".
      const std::size_t bytes = library_bytes(c);
      remember(state_of(c.comm, lib().config.wait), c, std::nullopt, bytes);
      return pass_to_library(c.coll, bytes, pmpi);
    }
    // The state first, even for a call refused by its arguments alone: its
    // repeats are remembered there. Every rank makes the same call, so the
    // set-up (collective over an intracommunicator) is met on every rank.
    CommState& st = state_of(c.comm, lib().config.wait);
    if (c.why) return fall_back(st, c, *c.why, c.detail, pmpi);
    if (st.inter) return fall_back(st, c, Fallback::intercommunicator, {}, pmpi);
    const std::size_t bytes =
        std::max(input_count(c.coll, st.p, c.count), output_count(c.coll, st.p, c.count)) *
        c.elem;
    if (bytes > lib().config.max_bytes)
      return fall_back(st, c, Fallback::size_limit,
                       fmt::format("{} B > {} B", bytes, lib().config.max_bytes), pmpi);
    Entry& e = entry_for(st, {c.coll, c.dtype, c.op, c.in_place, c.count, c.split_below_p});
    if (e.fallback) return fall_back(st, c, *e.fallback, e.detail, pmpi);
    // Timed from here: the one-time set-up of a communicator (the private
    // copy, the wait policy) and of a call shape (the schedule) is not.
    if (e.slot == kMpiSlot) {
      remember(st, c, std::nullopt, bytes);
      return pass_to_library(c.coll, bytes, pmpi);
    }
    const Stopwatch watch;
    if (c.split_counts) run_padded(st, e, c);
    else run_entry(st, e, c);
    e.tally->add(watch.nanos());
    return MPI_SUCCESS;
  } catch (const std::exception& ex) {
    fatal(c.coll, ex);
  }
}

// Reductions: a predefined type collbench reduces and a built-in op it has.
void classify_reduction(Call& c, MPI_Datatype type, MPI_Op op) {
  if (const auto d = reduction_type(type)) {
    c.dtype = *d;
    c.elem = element_size(*d);
  } else {
    c.why = contiguous_size(type) ? Fallback::datatype : Fallback::derived_datatype;
    if (*c.why == Fallback::datatype) c.detail = type_name(type);
    return;
  }
  if (const auto o = builtin_op(op)) {
    c.op = *o;
    if (!op_defined_on(type, *o)) {  // e.g. MPI_SUM on MPI_BYTE: MPI's error to give
      c.why = Fallback::op;
      c.detail = op_name(op) + " on " + type_name(type);
    }
  } else {
    c.why = is_user_op(op) ? Fallback::user_op : Fallback::op;
    if (*c.why == Fallback::op) c.detail = op_name(op);
  }
}

// Data movement: both sides contiguous and of the same size; runs as bytes.
void classify_movement(Call& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       int recvcount, MPI_Datatype recvtype) {
  c.mpi_count = recvcount;
  c.mpi_type = recvtype;
  const auto rsize = contiguous_size(recvtype);
  if (!rsize) {
    c.why = Fallback::derived_datatype;
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(std::max(recvcount, 0)) * *rsize;
  if (!c.in_place) {
    const auto ssize = contiguous_size(sendtype);
    if (!ssize) {
      c.why = Fallback::derived_datatype;
      return;
    }
    if (static_cast<std::size_t>(std::max(sendcount, 0)) * *ssize != bytes) {
      c.why = Fallback::type_mismatch;
      return;
    }
  }
  (void)sendbuf;
  c.dtype = DataType::uint8;
  c.elem = 1;
  c.count = bytes;
}

// Whether recvcounts[0..p) divide `total` elements as evenly as possible with
// the remainder on the first ranks: total / p each, one more for the first
// total mod p (for total < p: one each for the first total ranks).
bool is_balanced_split(const int* recvcounts, int p, long long total) {
  const long long base = total / p, extra = total % p;
  for (int r = 0; r < p; ++r)
    if (recvcounts[r] != base + (r < extra ? 1 : 0)) return false;
  return true;
}

PassKey reduction_key(EntryPoint point, const void* sendbuf, const void* recvbuf, int count,
                      MPI_Datatype type, MPI_Op op) {
  PassKey k;
  k.point = point;
  k.type = type;
  k.op = op;
  k.count = count;
  k.send_in_place = sendbuf == MPI_IN_PLACE;
  k.recv_in_place = recvbuf == MPI_IN_PLACE;
  return k;
}

// In place, MPI ignores the send count and type: so does the key.
PassKey movement_key(EntryPoint point, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     const void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  PassKey k;
  k.point = point;
  k.type = recvtype;
  k.count = recvcount;
  k.send_in_place = sendbuf == MPI_IN_PLACE;
  k.recv_in_place = recvbuf == MPI_IN_PLACE;
  if (!k.send_in_place) {
    k.send_type = sendtype;
    k.send_count = sendcount;
  }
  return k;
}

// The key `c` is remembered by when it goes to MPI's own collective, and the
// memo epoch its datatypes were looked at in (read first: a type freed
// meanwhile makes the memo stale, never wrong).
void remember_as(Call& c, const PassKey& key, unsigned epoch) {
  c.pass = key;
  c.epoch = epoch;
}

Call make_call(Collective coll, MPI_Comm comm, const void* sendbuf, void* recvbuf) {
  Call c;
  c.coll = coll;
  c.comm = comm;
  c.send = sendbuf;
  c.recv = recvbuf;
  c.in_place = sendbuf == MPI_IN_PLACE;
  if (c.in_place) c.send = nullptr;
  if (recvbuf == MPI_IN_PLACE) {
    c.why = Fallback::in_place_form;
    c.detail = "MPI_IN_PLACE as the receive buffer";
  }
  return c;
}

}  // namespace
}  // namespace cb::pmpi

using namespace cb;
using namespace cb::pmpi;

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) setup(true);
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) setup(true);
  return rc;
}

int MPI_Finalize() {
  if (lib().ready.exchange(false)) {
    Inside guard;
    if (lib().config.report && lib().world_rank == 0)
      std::fputs(report().c_str(), stderr);
    free_keyval();
  }
  return PMPI_Finalize();
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  const auto pmpi = [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); };
  if (t_inside || count < 0 || !active()) return pmpi();
  Inside guard;
  const unsigned epoch = lib().memo_epoch.load(std::memory_order_acquire);
  const PassKey key = reduction_key(EntryPoint::allreduce, sendbuf, recvbuf, count, datatype, op);
  if (const PassMemo* m = remembered_pass(remembered_state(comm), key, epoch))
    return repeat(Collective::allreduce, *m, pmpi);
  Call c = make_call(Collective::allreduce, comm, sendbuf, recvbuf);
  c.mpi_count = count;
  c.mpi_type = datatype;
  c.count = static_cast<std::size_t>(count);
  if (!c.why) classify_reduction(c, datatype, op);
  remember_as(c, key, epoch);
  return intercept(c, pmpi);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const auto pmpi = [&] {
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  };
  if (t_inside || recvcount < 0 || !active()) return pmpi();
  Inside guard;
  const unsigned epoch = lib().memo_epoch.load(std::memory_order_acquire);
  const PassKey key =
      reduction_key(EntryPoint::reduce_scatter_block, sendbuf, recvbuf, recvcount, datatype, op);
  if (const PassMemo* m = remembered_pass(remembered_state(comm), key, epoch))
    return repeat(Collective::reduce_scatter, *m, pmpi);
  Call c = make_call(Collective::reduce_scatter, comm, sendbuf, recvbuf);
  c.mpi_count = recvcount;
  c.mpi_type = datatype;
  c.count = static_cast<std::size_t>(recvcount);
  if (!c.why) classify_reduction(c, datatype, op);
  remember_as(c, key, epoch);
  return intercept(c, pmpi);
}

// MPI_Reduce_scatter with every rank's count equal is MPI_Reduce_scatter_block
// (in place too: the input is the whole receive buffer, the result lands at
// its start), so it runs the same schedules and counts as reduce_scatter.
// Counts that are the balanced split of their sum run that schedule padded
// (run_padded), except a sum below p under selection or auto (choose); any
// other per-rank counts go to MPI.
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const auto pmpi = [&] {
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  };
  if (t_inside || !recvcounts || comm == MPI_COMM_NULL || !active()) return pmpi();
  Inside guard;
  const unsigned epoch = lib().memo_epoch.load(std::memory_order_acquire);
  // A remembered communicator knows its size and kind without asking MPI.
  CommState* const known = remembered_state(comm);
  int p = 0, inter = 0;
  if (known) {
    p = known->p;
    inter = known->inter;
  } else if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
             PMPI_Comm_size(comm, &p) != MPI_SUCCESS) {
    return pmpi();
  }
  if (inter || p < 1 || recvcounts[0] < 0) return pmpi();
  bool equal = true;
  long long total = 0;
  for (int r = 0; r < p; ++r) {
    if (recvcounts[r] < 0) return pmpi();  // MPI reports the error
    equal = equal && recvcounts[r] == recvcounts[0];
    total += recvcounts[r];
  }
  const bool balanced = equal || is_balanced_split(recvcounts, p, total);
  PassKey key = reduction_key(EntryPoint::reduce_scatter, sendbuf, recvbuf, recvcounts[0],
                              datatype, op);
  key.split_total = equal ? -1 : total;
  key.irregular = !balanced;
  if (const PassMemo* m = remembered_pass(known, key, epoch))
    if (!key.irregular || std::equal(m->counts.begin(), m->counts.end(), recvcounts))
      return repeat(Collective::reduce_scatter, *m, pmpi);
  Call c = make_call(Collective::reduce_scatter, comm, sendbuf, recvbuf);
  c.function = "MPI_Reduce_scatter";
  c.recvcounts = recvcounts;
  c.mpi_count = recvcounts[0];
  c.mpi_type = datatype;
  c.count = static_cast<std::size_t>(recvcounts[0]);
  if (!equal && !c.why) {
    if (balanced) {
      c.split_counts = recvcounts;
      c.split_total = static_cast<std::size_t>(total);
      c.split_below_p = total < p;
      c.count = static_cast<std::size_t>((total + p - 1) / p);
      // Run out of place on the padded copy, whatever the caller's form:
      // in place, the input is the receive buffer laid out by recvcounts.
      c.send = c.in_place ? recvbuf : sendbuf;
      c.in_place = false;
    } else {
      c.why = Fallback::irregular_counts;
    }
  }
  if (!c.why) classify_reduction(c, datatype, op);
  remember_as(c, key, epoch);
  return intercept(c, pmpi);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const auto pmpi = [&] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  if (t_inside || recvcount < 0 || !active()) return pmpi();
  Inside guard;
  const unsigned epoch = lib().memo_epoch.load(std::memory_order_acquire);
  const PassKey key = movement_key(EntryPoint::allgather, sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype);
  if (const PassMemo* m = remembered_pass(remembered_state(comm), key, epoch))
    return repeat(Collective::allgather, *m, pmpi);
  Call c = make_call(Collective::allgather, comm, sendbuf, recvbuf);
  if (!c.why) classify_movement(c, sendbuf, sendcount, sendtype, recvcount, recvtype);
  remember_as(c, key, epoch);
  return intercept(c, pmpi);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const auto pmpi = [&] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  if (t_inside || recvcount < 0 || !active()) return pmpi();
  Inside guard;
  const unsigned epoch = lib().memo_epoch.load(std::memory_order_acquire);
  const PassKey key = movement_key(EntryPoint::alltoall, sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype);
  if (const PassMemo* m = remembered_pass(remembered_state(comm), key, epoch))
    return repeat(Collective::alltoall, *m, pmpi);
  Call c = make_call(Collective::alltoall, comm, sendbuf, recvbuf);
  if (!c.why) classify_movement(c, sendbuf, sendcount, sendtype, recvcount, recvtype);
  remember_as(c, key, epoch);
  return intercept(c, pmpi);
}

// Passed on untouched; counted, so that no remembered call outlives the type
// its handle named (a freed handle may come back naming another).
int MPI_Type_free(MPI_Datatype* datatype) {
  lib().memo_epoch.fetch_add(1, std::memory_order_acq_rel);
  return PMPI_Type_free(datatype);
}

int collbench_pmpi_set_algorithm(const char* collective, const char* value) {
  if (!value) return -1;
  try {
    Config& config = lib().config;
    if (collective) {
      const Collective coll = parse_collective(collective);
      config.choice[static_cast<int>(coll)] =
          parse_choice(coll, env_name(coll), value, config, true);
    } else {
      std::array<Choice, std::size(kAllCollectives)> next;
      for (Collective coll : kAllCollectives)
        next[static_cast<int>(coll)] = parse_choice(coll, "COLLBENCH_ALGO", value, config, false);
      config.choice = next;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collbench-pmpi: %s\n", e.what());
    return -1;
  }
  lib().generation.fetch_add(1, std::memory_order_acq_rel);
  lib().memo_epoch.fetch_add(1, std::memory_order_acq_rel);
  return 0;
}

unsigned long long collbench_pmpi_calls(const char* collective, const char* algorithm) {
  if (!collective || !algorithm) return 0;
  try {
    const Collective coll = parse_collective(collective);
    const int slot = std::string_view(algorithm) == "mpi" ? kMpiSlot
                                                          : algorithm_slot(coll, algorithm);
    return slot < 0 ? 0 : calls(coll, slot);
  } catch (const std::exception&) {
    return 0;
  }
}

unsigned long long collbench_pmpi_fallbacks(const char* collective) {
  if (!collective) return 0;
  try {
    const Collective coll = parse_collective(collective);
    unsigned long long n = 0;
    for (int f = 0; f < static_cast<int>(Fallback::count_); ++f)
      n += fallbacks(coll, static_cast<Fallback>(f));
    return n;
  } catch (const std::exception&) {
    return 0;
  }
}

}  // extern "C"
