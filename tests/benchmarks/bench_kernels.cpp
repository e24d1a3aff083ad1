// Reduction kernel bandwidth against memcpy of the same bytes (the issue's
// target: fp32 sum >= 50% of memcpy on in-cache sizes). Both stream the same
// number of bytes per iteration: `range(0)` is the size of one vector, so
// memcpy reads it once and writes it once, reduce_inplace reads two and
// writes one. Sizes: 4 KiB .. 1 MiB (L1/L2-resident, two buffers) and 64 MiB
// (memory-bound).
//
// Each reduce row also reports `vs_memcpy`: its bandwidth divided by memcpy's,
// both re-timed back to back on the same buffers for as many iterations, so
// the ratio compares like with like (same cache state, same moment). Rates
// and the ratio use CPU time, so a loaded machine skews them less.
#include <benchmark/benchmark.h>

#include <cstring>
#include <ctime>
#include <vector>

#include "transports/kernels/half.hpp"
#include "transports/kernels/reduce.hpp"

namespace cb {
namespace {

void sizes(benchmark::internal::Benchmark* b) {
  for (long kib : {4, 16, 64, 256, 1024, 64 * 1024}) b->Arg(kib * 1024);
}

// Buffers holding the op's identity in src, so dst never changes and no
// value drifts into subnormals or infinities that would change the timing.
struct Buffers {
  std::vector<std::byte> dst, src;
  Buffers(DataType t, ReduceOp op, std::size_t bytes) : dst(bytes), src(bytes) {
    const std::size_t size = element_size(t);
    std::vector<std::byte> one(size);
    switch (t) {
      case DataType::fp16: {
        const std::uint16_t h = float_to_half(1.0f);
        std::memcpy(one.data(), &h, size);
        break;
      }
      case DataType::bf16: {
        const std::uint16_t h = float_to_bf16(1.0f);
        std::memcpy(one.data(), &h, size);
        break;
      }
      case DataType::fp32: {
        const float f = 1.0f;
        std::memcpy(one.data(), &f, size);
        break;
      }
      case DataType::fp64: {
        const double d = 1.0;
        std::memcpy(one.data(), &d, size);
        break;
      }
      default:
        one[0] = std::byte{1};  // little-endian integer 1
    }
    for (std::size_t i = 0; i + size <= bytes; i += size) {
      std::memcpy(dst.data() + i, one.data(), size);
      if (op == ReduceOp::prod || op == ReduceOp::min || op == ReduceOp::max)
        std::memcpy(src.data() + i, one.data(), size);  // sum/avg: src stays 0
    }
  }
};

template <class F>
double thread_seconds(F&& body) {
  timespec a{}, b{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  body();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  return static_cast<double>(b.tv_sec - a.tv_sec) +
         1e-9 * static_cast<double>(b.tv_nsec - a.tv_nsec);
}

void BM_memcpy(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> dst(bytes, std::byte{0}), src(bytes, std::byte{1});
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

void BM_reduce(benchmark::State& state, DataType t, ReduceOp op) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const std::size_t count = bytes / element_size(t);
  Buffers buf(t, op, bytes);
  for (auto _ : state) {
    reduce_inplace(t, op, buf.dst.data(), buf.src.data(), count);
    benchmark::DoNotOptimize(buf.dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));

  // The ratio: memcpy and reduce timed again back to back on the same buffers
  // for the same iterations (the framework does not expose the loop's time).
  // Thread CPU time, like the framework's rates, so other load on the machine
  // does not skew it.
  const benchmark::IterationCount n = state.iterations();
  const double memcpy_s = thread_seconds([&] {
    for (benchmark::IterationCount i = 0; i < n; ++i) {
      std::memcpy(buf.dst.data(), buf.src.data(), bytes);
      benchmark::DoNotOptimize(buf.dst.data());
      benchmark::ClobberMemory();
    }
  });
  const double reduce_s = thread_seconds([&] {
    for (benchmark::IterationCount i = 0; i < n; ++i) {
      reduce_inplace(t, op, buf.dst.data(), buf.src.data(), count);
      benchmark::DoNotOptimize(buf.dst.data());
      benchmark::ClobberMemory();
    }
  });
  state.counters["vs_memcpy"] = memcpy_s / reduce_s;
}

BENCHMARK(BM_memcpy)->Apply(sizes);
BENCHMARK_CAPTURE(BM_reduce, fp32_sum, DataType::fp32, ReduceOp::sum)->Apply(sizes);
BENCHMARK_CAPTURE(BM_reduce, fp64_sum, DataType::fp64, ReduceOp::sum)->Apply(sizes);
BENCHMARK_CAPTURE(BM_reduce, fp16_sum, DataType::fp16, ReduceOp::sum)->Apply(sizes);
BENCHMARK_CAPTURE(BM_reduce, bf16_sum, DataType::bf16, ReduceOp::sum)->Apply(sizes);
BENCHMARK_CAPTURE(BM_reduce, int32_sum, DataType::int32, ReduceOp::sum)->Apply(sizes);
BENCHMARK_CAPTURE(BM_reduce, int8_sum, DataType::int8, ReduceOp::sum)->Apply(sizes);
BENCHMARK_CAPTURE(BM_reduce, fp32_max, DataType::fp32, ReduceOp::max)->Apply(sizes);
BENCHMARK_CAPTURE(BM_reduce, int64_prod, DataType::int64, ReduceOp::prod)->Apply(sizes);

}  // namespace
}  // namespace cb

BENCHMARK_MAIN();
