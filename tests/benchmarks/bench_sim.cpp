// Simulator speed: one ring all-reduce (the registry's schedules, 2(p-1)
// steps, p messages per step) at p = 1024, 2048, 4096. The goal: p = 4096
// (33.5 million message events) within 10 s on the 2-core dev machine,
// >= 10 million events/s. Arguments: p, steps per window (0 = the default
// budget of 8 Mi rank-steps; a fixed count shows memory growing linearly in p).
// Counters: events_per_s over the whole run (schedule generation included),
// engine_events_per_s (event evaluation alone), peak_rss_MiB (whole process:
// run one configuration per process, --benchmark_filter, to read it per p).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "transports/sim/simulator.hpp"

namespace {

void BM_SimRingAllreduce(benchmark::State& state) {
  const cb::AlgorithmEntry& ring = cb::find_algorithm(cb::Collective::allreduce, "ring");
  cb::CollParams params;
  params.p = static_cast<int>(state.range(0));
  params.count = 1 << 20;
  cb::sim::SimOptions options;
  options.window_steps = static_cast<std::uint64_t>(state.range(1));
  cb::sim::SimResult res;
  for (auto _ : state) {
    res = cb::sim::simulate(ring, params, cb::sim::NetworkParams{}, options);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["messages"] = static_cast<double>(res.messages);
  state.counters["windows"] = static_cast<double>(res.windows);
  state.counters["events_per_s"] = res.events_per_s();
  state.counters["engine_events_per_s"] =
      res.engine_wall_s > 0 ? static_cast<double>(res.messages) / res.engine_wall_s : 0;
  state.counters["build_s"] = res.build_wall_s;
  state.counters["engine_s"] = res.engine_wall_s;
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  state.counters["simulated_ms"] = res.time_s * 1e3;
}
BENCHMARK(BM_SimRingAllreduce)
    ->ArgsProduct({{1024, 2048, 4096}, {0, 512}})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
