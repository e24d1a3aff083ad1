// The memory-traffic bound (models/memory_bound.hpp) on schedules whose
// traffic is easy to count by hand, and memory-bound.csv's rows
// (models/memory_rows.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include "models/memory_bound.hpp"
#include "models/memory_rows.hpp"

namespace cb::models {
namespace {

MemoryTraffic traffic(std::string_view algo, bool in_place, ReduceOp op = ReduceOp::sum) {
  const Scenario s{Collective::allreduce, 2, DataType::fp32, op, in_place};
  return busiest_rank_traffic(find_algorithm(Collective::allreduce, algo), s, 1000);
}

// 1000 fp32 = 4000 B on 2 ranks.
TEST(MemoryBound, ButterflyOutOfPlaceIsOnePassOverInputAndPeer) {
  // Copy the input into the output and reduce the peer's input into it: one
  // pass reading both (2 x 4000 B) and writing the output once; the staged
  // receive reads the peer in place (fused), so it costs nothing.
  const MemoryTraffic t = traffic("butterfly", false);
  EXPECT_DOUBLE_EQ(t.read_B, 8000);
  EXPECT_DOUBLE_EQ(t.written_B, 4000);
}

TEST(MemoryBound, ButterflyInPlaceCopiesWhatItSendsFirst) {
  // A local step copies the output into scratch (the send must not read what
  // the step reduces into), then a reduce-receive: 4000 + 8000 read, 4000 + 4000 written.
  const MemoryTraffic t = traffic("butterfly", true);
  EXPECT_DOUBLE_EQ(t.read_B, 12000);
  EXPECT_DOUBLE_EQ(t.written_B, 8000);
}

TEST(MemoryBound, RingMovesTheSameBytesInAndOutOfPlace) {
  // Half a vector reduced (read 2 x 2000, write 2000), half copied from the peer
  // (read 2000, write 2000), whichever the placement.
  for (bool in_place : {false, true}) {
    const MemoryTraffic t = traffic("ring", in_place);
    EXPECT_DOUBLE_EQ(t.read_B, 6000) << in_place;
    EXPECT_DOUBLE_EQ(t.written_B, 4000) << in_place;
  }
}

TEST(MemoryBound, AverageAddsItsDivision) {
  const MemoryTraffic sum = traffic("ring", false), avg = traffic("ring", false, ReduceOp::avg);
  EXPECT_DOUBLE_EQ(avg.read_B - sum.read_B, 4000);
  EXPECT_DOUBLE_EQ(avg.written_B - sum.written_B, 4000);
}

TEST(MemoryBound, SecondsAtTheBandwidth) {
  const MemoryTraffic t{6000, 4000};
  EXPECT_DOUBLE_EQ(memory_bound_s(t, 1e10), 1e-6);
  EXPECT_TRUE(std::isnan(memory_bound_s(t, 0)));
  EXPECT_DOUBLE_EQ(memory_Bps_of_copy(8.0), 16e9);  // a copy reads and writes each byte
  EXPECT_DOUBLE_EQ(memory_Bps_of_copy(0), 0);
}

Measurement row(std::string transport, std::string_view algo, std::uint64_t count, double time_s) {
  Measurement m;
  m.transport = std::move(transport);
  m.algorithm = std::string(algo);
  m.entry = algo == "mpi" ? nullptr : &find_algorithm(Collective::allreduce, algo);
  m.scenario = {Collective::allreduce, 2, DataType::fp32, ReduceOp::sum, false};
  m.has_op = true;
  m.count = count;
  m.bytes = count * 4;
  m.time_s = time_s;
  return m;
}

TEST(MemoryRows, OnlySharedMemorySchedulesWithAFractionOfTheBound) {
  const std::uint64_t big = std::uint64_t{8} << 20;  // 32 MiB of fp32: out of cache
  ResultsFile f;
  f.rows = {row("ipc-host", "ring", big, 0.01), row("ipc-host", "mpi", big, 0.01),
            row("mpi", "ring", big, 0.01), row("ipc-host", "ring", 1000, 1e-6)};
  EXPECT_TRUE(memory_rows(f, 0).empty());  // no bandwidth: no bound
  const std::vector<MemoryRow> rows = memory_rows(f, 10);  // 20 GB/s of traffic
  ASSERT_EQ(rows.size(), 2u);
  // ring moves 2.5 x 32 MiB per rank: 83886080 B at 2e10 B/s = 4.194304 ms of 10 ms.
  EXPECT_DOUBLE_EQ(rows[0].bound_s, 2.5 * 4 * big / 2e10);
  EXPECT_NEAR(rows[0].fraction, 0.4194304, 1e-12);
  EXPECT_TRUE(rows[0].out_of_cache);
  EXPECT_FALSE(rows[1].out_of_cache);
  const std::string csv = memory_rows_csv(rows);
  EXPECT_NE(csv.find("ipc-host,allreduce,ring,fp32,sum,out,2,33554432,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",0.4194304,1,0.8,0\n"), std::string::npos) << csv;  // target 0.8 missed
  EXPECT_NE(csv.find(",0,,\n"), std::string::npos) << csv;  // in cache: no target
}

}  // namespace
}  // namespace cb::models
