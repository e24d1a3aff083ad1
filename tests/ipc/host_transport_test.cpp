// What is the IPC host backend's own, under mpiexec -n 2, 3 and 4: every
// wait policy against the reference executor (two runs per operation: the
// sequence counters carry over between runs), segment hygiene, setup errors,
// the Group bootstrap. Every algorithm against the reference executor is
// tests/conformance/.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "tests/ipc/mpi_test_util.hpp"
#include "transports/ipc/ipc.hpp"
#include "transports/reference/reference.hpp"

namespace cb::ipc::test {
namespace {

struct TypeOp {
  DataType dtype;
  ReduceOp op;
};
struct Config {
  const AlgorithmEntry* algo;
  TypeOp type_op;
  std::size_t count;
  bool in_place;
  std::size_t segment_bytes;

  std::string describe(int p) const {
    return fmt::format("{}/{} p={} {} {} count={} {} segment={}", to_string(algo->coll), algo->name,
                       p, to_string(type_op.dtype), to_string(type_op.op), count,
                       in_place ? "in-place" : "out-of-place", segment_bytes);
  }
};

// Runs one configuration twice over IPC and compares each run with the
// reference executor on the same inputs. Returns wrong bytes on this rank.
long long check_config(const Config& c, WaitPolicy wait) {
  const int p = world_size();
  const int me = world_rank();
  std::vector<Schedule> all;
  for (int r = 0; r < p; ++r) {
    CollParams params;
    params.coll = c.algo->coll;
    params.p = p;
    params.rank = r;
    params.count = c.count;
    params.dtype = c.type_op.dtype;
    params.op = c.type_op.op;
    params.in_place = c.in_place;
    params.segment_bytes = c.segment_bytes;
    all.push_back(make_schedule(*c.algo, params));
  }
  auto op = make_ipc_operation(all[me], world_group(), MemoryKind::host, wait);
  const std::size_t es = element_size(c.type_op.dtype);
  long long wrong = 0;
  for (int run = 0; run < 2; ++run) {
    std::vector<std::vector<std::byte>> inputs;
    for (int r = 0; r < p; ++r)
      inputs.push_back(random_bytes(all[r].input_count() * es,
                                    (c.count * 131 + static_cast<unsigned>(r)) * 7 + run));
    const auto expected = run_reference(all, inputs);
    op->write_input(inputs[me]);
    op->run();
    std::vector<std::byte> out(all[me].output_count() * es);
    op->read_output(out);
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] != expected[me][i]) {
        if (wrong == 0)
          std::fprintf(stderr, "rank %d run %d: %s: first wrong byte %zu (element %zu)\n", me, run,
                       c.describe(p).c_str(), i, i / es);
        ++wrong;
      }
  }
  return wrong;
}

// Every algorithm against the reference executor: tests/conformance/, for
// every per-process transport at once.

TEST(IpcHost, EveryWaitPolicyGivesTheSameResult) {
  const AlgorithmEntry& ring = find_algorithm(Collective::allreduce, "ring");
  for (WaitPolicy wait : {WaitPolicy::spin, WaitPolicy::yield, WaitPolicy::sleep}) {
    const Config c{&ring, {DataType::fp32, ReduceOp::sum}, 4099, false, 0};
    EXPECT_EQ(sum_all(check_config(c, wait)), 0);
  }
}

// Copies, fused copy-reduces and reduce-receives of 8 MiB and more take the
// host backend's streaming paths (non-temporal stores, reduce_into_streaming;
// shm/host_operation.cpp), which the small counts elsewhere never reach:
// blocks of 2M + 37 elements, odd so that the ragged ends and the last short
// piece are exercised. At p = 2 only: the blocks are what matters, and more
// ranks of such buffers would only slow the suite.
TEST(IpcHost, LargeStreamedCopiesAndReducesMatchTheReference) {
  const int p = world_size();
  if (p != 2) GTEST_SKIP() << "the streaming paths are checked at p = 2";
  const std::size_t block = (std::size_t{2} << 20) + 37;
  const TypeOp fp32{DataType::fp32, ReduceOp::sum}, fp64{DataType::fp64, ReduceOp::min};
  const AlgorithmEntry& ring = find_algorithm(Collective::allreduce, "ring");
  const AlgorithmEntry& rhd = find_algorithm(Collective::reduce_scatter, "rhd");
  const AlgorithmEntry& gather = find_algorithm(Collective::allgather, "ring");
  for (const Config& c : {Config{&ring, fp32, 2 * block, false, 0},  // copy-reduce, then copies
                          Config{&ring, fp32, 2 * block, true, 0},   // reduce-receive in place
                          Config{&ring, fp32, 65573, true, 0},  // in place, 128 KiB: streamed too
                          Config{&rhd, fp64, block, false, 0},       // copy-reduce of 8-byte pieces
                          Config{&gather, fp32, block, false, 0}})   // local and received copies
    EXPECT_EQ(sum_all(check_config(c, WaitPolicy::yield)), 0) << c.describe(p);
}

TEST(IpcHost, NoSegmentNameOutlivesSetup) {
  const AlgorithmEntry& algo = find_algorithm(Collective::allgather, "ring");
  CollParams params;
  params.coll = Collective::allgather;
  params.p = world_size();
  params.rank = world_rank();
  params.count = 100;
  auto op = make_ipc_operation(make_schedule(algo, params), world_group(), MemoryKind::host,
                               WaitPolicy::yield);
  // The segments stay mapped (the operation still works) but have no names.
  EXPECT_EQ(sum_all(static_cast<long long>(own_segments().size())), 0);
  op->run();
}

TEST(IpcHost, SetupErrorOnOneRankThrowsOnEveryRankAndLeavesNoSegment) {
  const AlgorithmEntry& algo = find_algorithm(Collective::allreduce, "ring");
  CollParams params;
  params.p = world_size();
  params.rank = world_rank();
  params.count = 64;
  Schedule s = make_schedule(algo, params);
  // Rank 1 expects one element less than its peer sends: the pairing check
  // fails there, and every rank must learn it instead of hanging.
  if (world_rank() == 1) {
    bool broken = false;
    for (Step& step : s.steps)
      for (Recv& r : step.recvs)
        if (!broken && r.dst.count > 0) {
          --r.dst.count;
          broken = true;
        }
    ASSERT_TRUE(broken);
  }
  EXPECT_ANY_THROW(make_ipc_operation(s, world_group(), MemoryKind::host, WaitPolicy::yield));
  EXPECT_TRUE(own_segments().empty());
}

// The bootstrap the IPC transport connects its peers over: rank r sends r + 1
// bytes of value r, and every rank receives all of them, in rank order.
TEST(IpcBootstrap, AllgatherBytesGivesEveryRankEveryRanksBytes) {
  const int me = world_rank(), p = world_size();
  const std::vector<std::byte> mine(static_cast<std::size_t>(me + 1), std::byte(me));
  const auto all = world_group().allgather_bytes(mine);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r)
    EXPECT_EQ(all[r], std::vector<std::byte>(static_cast<std::size_t>(r + 1), std::byte(r)))
        << "from rank " << r;
  EXPECT_EQ(allgather_value(world_group(), me * 10)[static_cast<std::size_t>(p - 1)], (p - 1) * 10);
  const auto self = make_self_group()->allgather_bytes(mine);
  ASSERT_EQ(self.size(), 1u);
  EXPECT_EQ(self[0], mine);
}

TEST(IpcHost, UnknownMemoryKindIsAUsageError) {
  EXPECT_THROW(parse_memory_kind("gpu"), UsageError);
  EXPECT_EQ(parse_memory_kind("host"), MemoryKind::host);
  EXPECT_EQ(parse_memory_kind("cuda"), MemoryKind::cuda);
}

}  // namespace
}  // namespace cb::ipc::test
