// Simulator speed, discrete-event simulation only (the exact fast path is
// off: these measure events). Targets of issue #12 on the 2-core dev machine:
//  - BM_SimRingAllreduce/16384/64MiB: ring all-reduce, 2(p-1) steps of p
//    messages (537 M message events) in <= 60 s, >= 10 M events/s end to end;
//  - BM_SimLogDepth/<algo>/1048576: butterfly, rhd, tree all-reduce and bruck
//    all-gather at p = 2^20 in <= 60 s each, <= 4 GiB RSS (read peak_rss_MiB,
//    or /usr/bin/time -v, with one configuration per process).
// Run one configuration per process with --benchmark_filter (RSS is the
// whole process's). Counters: events_per_s end to end (schedule generation
// included), engine_events_per_s (event evaluation alone), build_s, engine_s,
// windows, peak_rss_MiB, simulated_ms.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "transports/sim/simulator.hpp"

namespace {

void report(benchmark::State& state, const cb::sim::SimResult& res) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["messages"] = static_cast<double>(res.messages);
  state.counters["windows"] = static_cast<double>(res.windows);
  state.counters["events_per_s"] = res.events_per_s();
  state.counters["engine_events_per_s"] = res.engine_events_per_s();
  state.counters["build_s"] = res.build_wall_s;
  state.counters["engine_s"] = res.engine_wall_s;
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  state.counters["simulated_ms"] = res.time_s * 1e3;
}

cb::sim::SimResult des(const cb::AlgorithmEntry& algo, const cb::CollParams& params,
                       std::uint64_t window_steps = 0) {
  cb::sim::SimOptions options;
  options.fast_path = false;
  options.window_steps = window_steps;
  return cb::sim::simulate(algo, params, cb::sim::NetworkParams{}, options);
}

// Args: p, bytes, steps per window (0 = the default budget).
void BM_SimRingAllreduce(benchmark::State& state) {
  const cb::AlgorithmEntry& ring = cb::find_algorithm(cb::Collective::allreduce, "ring");
  cb::CollParams params;
  params.p = static_cast<int>(state.range(0));
  params.count = static_cast<std::size_t>(state.range(1)) / 4;
  cb::sim::SimResult res;
  for (auto _ : state) res = des(ring, params, static_cast<std::uint64_t>(state.range(2)));
  report(state, res);
}
BENCHMARK(BM_SimRingAllreduce)
    ->ArgsProduct({{1024, 4096}, {4 << 20}, {0, 512}})
    ->Args({16384, 64 << 20, 0})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

// Log-depth algorithms at up to 2^20 ranks, 1 MiB per rank's vector
// (all-reduce) or 8 B per rank's block (all-gather).
void BM_SimLogDepth(benchmark::State& state, cb::Collective coll, const char* name) {
  const cb::AlgorithmEntry& algo = cb::find_algorithm(coll, name);
  cb::CollParams params;
  params.coll = coll;
  params.p = static_cast<int>(state.range(0));
  params.count = coll == cb::Collective::allreduce ? (1 << 20) / 4 : 2;
  cb::sim::SimResult res;
  for (auto _ : state) res = des(algo, params);
  report(state, res);
}
#define CB_LOG_DEPTH(coll, name)                                                         \
  BENCHMARK_CAPTURE(BM_SimLogDepth, coll##_##name, cb::Collective::coll, #name)           \
      ->Arg(65536)                                                                       \
      ->Arg(1 << 20)                                                                     \
      ->Iterations(1)                                                                    \
      ->UseRealTime()                                                                    \
      ->Unit(benchmark::kSecond)
CB_LOG_DEPTH(allreduce, butterfly);
CB_LOG_DEPTH(allreduce, rhd);
CB_LOG_DEPTH(allreduce, tree);
CB_LOG_DEPTH(allgather, bruck);

}  // namespace

BENCHMARK_MAIN();
