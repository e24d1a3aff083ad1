// The memory-traffic bound (models/memory_bound.hpp) on schedules whose
// traffic is easy to count by hand, and memory-bound.csv's rows
// (models/memory_rows.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "algorithms/schedule_cost.hpp"
#include "models/calibration.hpp"
#include "models/memory_bound.hpp"
#include "models/memory_rows.hpp"

namespace cb::models {
namespace {

MemoryTraffic traffic(std::string_view algo, bool in_place, ReduceOp op = ReduceOp::sum) {
  const Scenario s{Collective::allreduce, 2, DataType::fp32, op, in_place};
  return critical_path_traffic(find_algorithm(Collective::allreduce, algo), s, 1000);
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

Schedule hand_schedule(int rank, std::vector<Step> steps) {
  Schedule s;
  s.coll = Collective::allgather;
  s.algorithm = "hand";
  s.p = 2;
  s.rank = rank;
  s.count = 1000;
  s.dtype = DataType::fp32;
  s.steps = std::move(steps);
  return s;
}

TEST(MemoryBound, ChainsAcrossRanksAddUp) {
  // Rank 0 copies 4000 B locally, then sends them; rank 1 copies them on
  // arrival. Each rank alone moves 8000 B, but rank 1's copy cannot start
  // before rank 0's: 16000 B along the chain.
  const Region block{kOutput, 0, 1000};
  Step copy, send, idle, recv;
  copy.locals.push_back({LocalKind::copy, {kInput, 0, 1000}, block});
  send.sends.push_back({1, block});
  recv.recvs.push_back({0, block, RecvMode::copy});
  const std::vector<Schedule> ranks{hand_schedule(0, {copy, send}), hand_schedule(1, {idle, recv})};
  EXPECT_DOUBLE_EQ(memory_traffic(ranks[0]).total_B(), 8000);
  EXPECT_DOUBLE_EQ(memory_traffic(ranks[1]).total_B(), 8000);
  const MemoryTraffic chain = critical_path_traffic(ranks);
  EXPECT_DOUBLE_EQ(chain.read_B, 8000);
  EXPECT_DOUBLE_EQ(chain.written_B, 8000);
}

TEST(MemoryBound, ConcurrentStepsDoNotAddUp) {
  // The same copy on rank 1 in the round rank 0 copies: the two overlap, and
  // rank 1's receive waits for rank 0's copy only: 16000 B, not 24000.
  const Region block{kOutput, 0, 1000};
  Step copy, send, recv;
  copy.locals.push_back({LocalKind::copy, {kInput, 0, 1000}, block});
  send.sends.push_back({1, block});
  recv.recvs.push_back({0, {kOutput, 0, 1000}, RecvMode::copy});
  Step other_copy;
  other_copy.locals.push_back({LocalKind::copy, {kInput, 0, 1000}, {kInput, 0, 1000}});
  const std::vector<Schedule> ranks{hand_schedule(0, {copy, send}),
                                    hand_schedule(1, {other_copy, recv})};
  EXPECT_DOUBLE_EQ(critical_path_traffic(ranks).total_B(), 16000);
}

TEST(MemoryBound, TreePhasesRunOneAfterAnother) {
  // Allgather over a tree at p = 2: the broadcast's copy waits for the
  // gather at the root, so the chain is longer than any rank's own bytes.
  const Scenario s{Collective::allgather, 2, DataType::fp32, ReduceOp::sum, false};
  const AlgorithmEntry& tree = find_algorithm(Collective::allgather, "tree");
  const std::vector<Schedule> ranks = make_all_schedules(tree, coll_params(s, 1000));
  double busiest = 0;
  for (const Schedule& r : ranks) busiest = std::max(busiest, memory_traffic(r).total_B());
  EXPECT_GT(critical_path_traffic(tree, s, 1000).total_B(), busiest);
}

TEST(MemoryBound, SecondsAtTheBandwidth) {
  const MemoryTraffic t{6000, 4000};
  EXPECT_DOUBLE_EQ(memory_bound_s(t, 1e10), 1e-6);
  EXPECT_TRUE(std::isnan(memory_bound_s(t, 0)));
  EXPECT_DOUBLE_EQ(memory_Bps_of_copy(8.0), 16e9);  // a copy reads and writes each byte
  EXPECT_DOUBLE_EQ(memory_Bps_of_copy(0), 0);
}

// The bound's rate: the copy past the caches where the calibration has one,
// else (an older file) its 64 MiB copy; nothing from a file without either.
TEST(MemoryBound, RateOfACalibrationFile) {
  const std::string path = ::testing::TempDir() + "cb-memory-rate.csv";
  auto rate_with = [&](double memcpy, double memory) {
    Calibration c = fit_calibration({8, 65536, 1 << 20}, {1e-6, 2e-6, 1e-5}, {65536}, {1e-5});
    c.memcpy_GBps = memcpy;
    c.memory_GBps = memory;
    std::ofstream(path) << format_calibration(c);
    EXPECT_DOUBLE_EQ(read_calibration(path).memory_GBps, memory);
    return copy_GBps_of(path);
  };
  EXPECT_DOUBLE_EQ(rate_with(27, 21), 21);
  EXPECT_DOUBLE_EQ(rate_with(27, 0), 27);
  EXPECT_DOUBLE_EQ(rate_with(0, 0), 0);
  std::remove(path.c_str());
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
