// This machine's memcpy bandwidth: the ceiling the IPC transport's busbw is
// compared with (transports/ipc/README.md). One thread copies out-of-cache
// buffers (4 to 64 MiB), as one rank of an IPC collective does; the
// two-thread variant shows what two ranks copying at once share.
#include <benchmark/benchmark.h>

#include <cstring>
#include <thread>
#include <vector>

namespace {

void BM_memcpy(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);  // touched: no page faults while timed
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}
BENCHMARK(BM_memcpy)->Arg(4 << 20)->Arg(16 << 20)->Arg(64 << 20)->UseRealTime();

// Google Benchmark's ->Threads(2): each thread copies its own buffers; the
// reported rate is the sum over threads.
BENCHMARK(BM_memcpy)->Arg(16 << 20)->Threads(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
