// What libcollbench-pmpi.so costs where it hands the call to the MPI library
// anyway (the `mpi` slot: COLLBENCH_ALGO=mpi, or auto / selection choosing
// MPI's own collective): the intercepted MPI_ call against the same PMPI_
// call made directly, in one run. Per repeat, one block of ITERATIONS
// back-to-back calls of each (no barrier between calls: the wrapper's few
// nanoseconds would drown in a barrier's), in swapped order every other
// repeat, each timed as a whole on every rank and averaged over the ranks.
// Each repeat gives the per-call difference (intercepted - direct, ns) and the
// ratio direct / intercepted (as app_compare's MPICH / collbench: >= 0.95 is
// the target); the table shows their median and quartiles.
//
// The intercepted calls must have gone to MPI: the library's own counter
// (collbench_pmpi_calls(COLL, "mpi")) must have grown by exactly the calls
// made, else the program says what ran and exits 1. So with `auto` it also
// tells whether the model routes the size to the library.
//
// The fallback cases are calls the library refuses and sends to MPI's own
// collective (counted as fallbacks, collbench_pmpi_fallbacks(COLL), which
// must grow by exactly the calls made): fallback_op is MPI_Allreduce with a
// user-defined op (MPI_Op_create, a float sum), fallback_split
// MPI_Reduce_scatter with OSU's split of fewer floats than ranks (BYTES < 4 p,
// p >= 2; a fallback under auto and selection). A repeated fallback should cost
// what a repeated pass costs.
//
// LOOP osu times every call alone, as OSU's loop does (MPI_Wtime before and
// after it, then a barrier outside the timing), instead of a back-to-back
// block: whatever the barrier between calls leaves cold is then in the figure.
//
// usage: mpiexec -bind-to core -n P -genv LD_PRELOAD .../libcollbench-pmpi.so
//          [-genv COLLBENCH_ALGO auto -genv COLLBENCH_PARAMS FILE]
//          pmpi_passthrough [COLLS=allreduce] [BYTES=8] [REPEATS=101] [ITERATIONS=2000]
//                           [LOOP=block|osu]
//        COLLS: allreduce, reduce_scatter, allgather, alltoall, fallback_op,
//        fallback_split, or all (the first four), comma-separated;
//        BYTES: comma-separated, each a multiple of 4 (the reductions are MPI_FLOAT sums);
//        reduce_scatter is MPI_Reduce_scatter with equal counts (as osu_reduce_scatter
//        calls it), allgather and alltoall MPI_CHAR (OSU's default). BYTES is the
//        call's size as OSU counts it: the whole vector of all-reduce and
//        reduce-scatter, one rank's block of all-gather and all-to-all.
#include <dlfcn.h>
#include <fmt/format.h>
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "transports/mpi/pmpi/bench/bench_main.hpp"
#include "transports/mpi/pmpi/bench/ratio_stats.hpp"

namespace {

using CallsFn = unsigned long long (*)(const char*, const char*);
using FallbacksFn = unsigned long long (*)(const char*);

// The user-defined op of fallback_op: a float sum, as MPI_SUM would give.
void float_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const float*>(in);
  auto* b = static_cast<float*>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}
MPI_Op g_user_sum = MPI_OP_NULL;

// The buffers of one collective and size, and the two ways of calling it
// (which point into the buffers: a Case stays where it was made).
struct Case {
  Case() = default;
  Case(const Case&) = delete;
  Case& operator=(const Case&) = delete;
  std::string coll;       // as the arguments name it
  std::string counters;   // the collective the library counts it under
  bool fallback = false;  // counted as a fallback, not as a pass
  long bytes = 0;
  std::vector<float> fin, fout;
  std::vector<char> cin, cout;
  std::vector<int> counts;
  std::function<void()> intercepted, direct;
};

void make_case(Case& c, const std::string& coll, long bytes, int p) {
  c.coll = coll;
  c.counters = coll;
  c.bytes = bytes;
  const int n = static_cast<int>(bytes / 4);  // floats in the whole vector
  if (coll == "fallback_op") {
    c.counters = "allreduce";
    c.fallback = true;
    c.fin.assign(static_cast<std::size_t>(n), 1.0f);
    c.fout.assign(static_cast<std::size_t>(n), 0.0f);
    c.intercepted = [&c, n] {
      MPI_Allreduce(c.fin.data(), c.fout.data(), n, MPI_FLOAT, g_user_sum, MPI_COMM_WORLD);
    };
    c.direct = [&c, n] {
      PMPI_Allreduce(c.fin.data(), c.fout.data(), n, MPI_FLOAT, g_user_sum, MPI_COMM_WORLD);
    };
  } else if (coll == "allreduce") {
    c.fin.assign(static_cast<std::size_t>(n), 1.0f);
    c.fout.assign(static_cast<std::size_t>(n), 0.0f);
    c.intercepted = [&c, n] {
      MPI_Allreduce(c.fin.data(), c.fout.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    };
    c.direct = [&c, n] {
      PMPI_Allreduce(c.fin.data(), c.fout.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    };
  } else if (coll == "reduce_scatter" || coll == "fallback_split") {
    // As osu_reduce_scatter: the vector split as evenly as possible.
    c.counters = "reduce_scatter";
    c.fallback = coll == "fallback_split";
    for (int r = 0; r < p; ++r) c.counts.push_back(n / p + (r < n % p ? 1 : 0));
    c.fin.assign(static_cast<std::size_t>(n), 1.0f);
    c.fout.assign(static_cast<std::size_t>(n / p + 1), 0.0f);
    c.intercepted = [&c] {
      MPI_Reduce_scatter(c.fin.data(), c.fout.data(), c.counts.data(), MPI_FLOAT, MPI_SUM,
                         MPI_COMM_WORLD);
    };
    c.direct = [&c] {
      PMPI_Reduce_scatter(c.fin.data(), c.fout.data(), c.counts.data(), MPI_FLOAT, MPI_SUM,
                          MPI_COMM_WORLD);
    };
  } else {
    const bool gather = coll == "allgather";
    const int b = static_cast<int>(bytes);
    c.cin.assign(static_cast<std::size_t>(gather ? b : b * p), 'x');
    c.cout.assign(static_cast<std::size_t>(b * p), 0);
    if (gather) {
      c.intercepted = [&c, b] {
        MPI_Allgather(c.cin.data(), b, MPI_CHAR, c.cout.data(), b, MPI_CHAR, MPI_COMM_WORLD);
      };
      c.direct = [&c, b] {
        PMPI_Allgather(c.cin.data(), b, MPI_CHAR, c.cout.data(), b, MPI_CHAR, MPI_COMM_WORLD);
      };
    } else {
      c.intercepted = [&c, b] {
        MPI_Alltoall(c.cin.data(), b, MPI_CHAR, c.cout.data(), b, MPI_CHAR, MPI_COMM_WORLD);
      };
      c.direct = [&c, b] {
        PMPI_Alltoall(c.cin.data(), b, MPI_CHAR, c.cout.data(), b, MPI_CHAR, MPI_COMM_WORLD);
      };
    }
  }
}

// One block: `iterations` back-to-back calls after a barrier, timed as a
// whole; ns per call, averaged over the ranks (through PMPI_, uncounted).
// With `osu`, each call timed alone and a barrier after it (untimed).
double block_ns(const std::function<void()>& call, long iterations, bool osu) {
  PMPI_Barrier(MPI_COMM_WORLD);
  double mine = 0;
  if (osu) {
    for (long i = 0; i < iterations; ++i) {
      const double t0 = MPI_Wtime();
      call();
      mine += MPI_Wtime() - t0;
      PMPI_Barrier(MPI_COMM_WORLD);
    }
  } else {
    const double t0 = MPI_Wtime();
    for (long i = 0; i < iterations; ++i) call();
    mine = MPI_Wtime() - t0;
  }
  mine *= 1e9 / static_cast<double>(iterations);
  double sum = 0;
  int p = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &p);
  PMPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum / p;
}

// Measures one case; false when its intercepted calls did not all go to MPI.
bool measure(const BenchWorld& world, CallsFn calls, FallbacksFn fallbacks, Case& c, int repeats,
             long iterations, bool osu) {
  for (long i = 0; i < iterations / 10 + 1; ++i) {  // warm-up, and the library's set-up
    c.intercepted();
    c.direct();
  }
  const auto went_to_mpi = [&] {
    return c.fallback ? fallbacks(c.counters.c_str()) : calls(c.counters.c_str(), "mpi");
  };
  const unsigned long long before = went_to_mpi();
  std::vector<double> diff, ratio, lib_ns, direct_ns;
  for (int r = 0; r < repeats; ++r) {
    double a = 0, b = 0;
    if (r % 2 == 0) {
      a = block_ns(c.intercepted, iterations, osu);
      b = block_ns(c.direct, iterations, osu);
    } else {
      b = block_ns(c.direct, iterations, osu);
      a = block_ns(c.intercepted, iterations, osu);
    }
    lib_ns.push_back(a);
    direct_ns.push_back(b);
    diff.push_back(a - b);
    ratio.push_back(b / a);
  }
  const unsigned long long made = static_cast<unsigned long long>(repeats) *
                                  static_cast<unsigned long long>(iterations);
  const unsigned long long counted = went_to_mpi() - before;
  if (world.rank == 0) {
    if (counted != made) {
      std::fprintf(stderr,
                   "pmpi_passthrough: %s %ld B: %llu of %llu intercepted calls were counted as "
                   "%s (the rest ran a schedule or %s): not a %s size under these settings\n",
                   c.coll.c_str(), c.bytes, counted, made,
                   c.fallback ? "fallbacks" : "passed to MPI's own collective",
                   c.fallback ? "were passed" : "fell back",
                   c.fallback ? "fallback" : "pass-through");
      return false;
    }
    const Spread d = spread_of(diff), q = spread_of(ratio), a = spread_of(lib_ns),
                 b = spread_of(direct_ns);
    fmt::print("  {:<15} {:>8} {:>15.1f} {:>10.1f} {:>9.1f} {:>7.1f}..{:<7.1f} {:>7.4f} "
               "{:>6.4f}..{:<6.4f}\n",
               c.coll, c.bytes, a.median, b.median, d.median, d.p25, d.p75, q.median, q.p25,
               q.p75);
  }
  return counted == made;
}

}  // namespace

int main(int argc, char** argv) {
  const BenchWorld world = join_world(&argc, &argv);
  const std::string usage =
      "usage: pmpi_passthrough [COLLS=allreduce] [BYTES=8] [REPEATS=101] [ITERATIONS=2000] "
      "[LOOP=block|osu]";
  std::vector<std::string> colls = comma_list(argc > 1 ? argv[1] : "allreduce");
  if (colls.size() == 1 && colls[0] == "all")
    colls = {"allreduce", "reduce_scatter", "allgather", "alltoall"};
  for (const std::string& c : colls)
    if (c != "allreduce" && c != "reduce_scatter" && c != "allgather" && c != "alltoall" &&
        c != "fallback_op" && c != "fallback_split")
      refuse(world, fmt::format("pmpi_passthrough: collective '{}'; accepted: allreduce, "
                                "reduce_scatter, allgather, alltoall, fallback_op, "
                                "fallback_split, all; {}",
                                c, usage));
  std::vector<long> sizes;
  for (const std::string& s : comma_list(argc > 2 ? argv[2] : "8")) {
    const std::optional<long> v = whole_positive(s);
    if (!v || *v % 4 != 0)
      refuse(world, fmt::format("pmpi_passthrough: size '{}' is not a whole number of bytes "
                                "> 0 divisible by 4; {}", s, usage));
    sizes.push_back(*v);
  }
  long numbers[2] = {101, 2000};  // repeats, iterations
  for (int i = 3; i < argc && i < 5; ++i) {
    const std::optional<long> v = whole_positive(argv[i]);
    if (!v)
      refuse(world, fmt::format("pmpi_passthrough: '{}' is not a whole number > 0; {}", argv[i],
                                usage));
    numbers[i - 3] = *v;
  }
  const std::string loop = argc > 5 ? argv[5] : "block";
  if (loop != "block" && loop != "osu")
    refuse(world, fmt::format("pmpi_passthrough: LOOP '{}'; accepted: block (back-to-back "
                              "calls), osu (each call timed alone, a barrier after it); {}",
                              loop, usage));
  const auto calls = reinterpret_cast<CallsFn>(dlsym(RTLD_DEFAULT, "collbench_pmpi_calls"));
  const auto fallbacks =
      reinterpret_cast<FallbacksFn>(dlsym(RTLD_DEFAULT, "collbench_pmpi_fallbacks"));
  if (!calls || !fallbacks)
    refuse(world, "pmpi_passthrough: needs libcollbench-pmpi.so in LD_PRELOAD (its "
                  "collbench_pmpi_calls says which calls went to MPI)");
  if (world.rank == 0) {
    fmt::print(
        "# {} ranks, {} repeats x {} {} per block; ns per call, "
        "mean over ranks; diff = intercepted - direct, ratio = direct / intercepted, "
        "median and p25..p75 over repeats\n",
        world.p, numbers[0], numbers[1],
        loop == "osu" ? "calls timed alone, a barrier after each," : "back-to-back calls");
    fmt::print("# collective         bytes intercepted(ns) direct(ns) diff(ns)  diff p25..p75"
               "    ratio  ratio p25..p75\n");
  }
  MPI_Op_create(float_sum, 1, &g_user_sum);
  bool ok = true;
  for (const std::string& coll : colls)
    for (long bytes : sizes) {
      Case c;
      make_case(c, coll, bytes, world.p);
      ok = measure(world, calls, fallbacks, c, static_cast<int>(numbers[0]), numbers[1],
                   loop == "osu") &&
           ok;
    }
  MPI_Op_free(&g_user_sum);
  MPI_Finalize();
  return ok ? 0 : 1;
}
