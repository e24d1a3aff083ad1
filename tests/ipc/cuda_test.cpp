// The CUDA-IPC backend and the NCCL baseline. Without a device (this build
// machine) they must fail at setup with one line naming the CUDA call; with
// one they must match the reference executor bit-exactly (CUDA-IPC, every
// registry entry) and exactly on integer data (NCCL, whose reduction order
// is its own).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "tests/ipc/mpi_test_util.hpp"
#include "transports/ipc/ipc.hpp"
#include "transports/reference/reference.hpp"

namespace cb::ipc::test {
namespace {

// Empty when every rank has a device, else why not (the same on every rank).
std::string missing_device() {
  int devices = 0;
  const cudaError_t rc = cudaGetDeviceCount(&devices);
  int have = (rc == cudaSuccess && devices > 0) ? 1 : 0, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all) return "";
  return rc != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(rc)
                           : "no device on some rank";
}

std::vector<Schedule> schedules(const AlgorithmEntry& algo, DataType dtype, ReduceOp op,
                                std::size_t count, bool in_place) {
  std::vector<Schedule> all;
  for (int r = 0; r < world_size(); ++r) {
    CollParams params;
    params.coll = algo.coll;
    params.p = world_size();
    params.rank = r;
    params.count = count;
    params.dtype = dtype;
    params.op = op;
    params.in_place = in_place;
    all.push_back(make_schedule(algo, params));
  }
  return all;
}

// Wrong bytes on this rank after one run of `op` against the reference of `all`.
long long wrong_bytes(Operation& op, const std::vector<Schedule>& all, std::uint64_t seed) {
  const int me = world_rank();
  const std::size_t es = element_size(all[0].dtype);
  std::vector<std::vector<std::byte>> inputs;
  for (int r = 0; r < world_size(); ++r)
    inputs.push_back(random_bytes(all[r].input_count() * es, seed * 97 + r));
  const auto expected = run_reference(all, inputs);
  op.write_input(inputs[me]);
  op.run();
  std::vector<std::byte> out(all[me].output_count() * es);
  op.read_output(out);
  long long wrong = 0;
  for (std::size_t i = 0; i < out.size(); ++i) wrong += out[i] != expected[me][i];
  return wrong;
}

TEST(IpcCuda, WithoutADeviceSetupNamesTheCudaCall) {
  if (missing_device().empty()) GTEST_SKIP() << "a CUDA device is present";
  const auto all = schedules(find_algorithm(Collective::allreduce, "ring"), DataType::fp32,
                             ReduceOp::sum, 16, false);
  const auto expect_cuda_error = [](auto make) {
    try {
      make();
      ADD_FAILURE() << "no error without a device";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("cudaGetDeviceCount: no CUDA device", 0), 0u) << e.what();
    }
  };
  if (cuda_backend_built())
    expect_cuda_error([&] {
      make_ipc_operation(all[world_rank()], world_group(), MemoryKind::cuda, WaitPolicy::yield);
    });
  if (nccl_built())
    expect_cuda_error([&] {
      make_nccl_operation(Collective::allreduce, DataType::fp32, ReduceOp::sum, false, 16,
                          world_group(), {});
    });
  EXPECT_THROW(require_cuda_device(), UsageError);
  EXPECT_TRUE(own_segments().empty());
}

TEST(IpcCuda, EveryAlgorithmMatchesReferenceBitExactly) {
  if (const std::string why = missing_device(); !why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  if (!cuda_backend_built()) GTEST_SKIP() << "built without CUDA";
  long long wrong = 0;
  for (const AlgorithmEntry* algo : all_algorithms())
    for (DataType dtype : {DataType::fp32, DataType::fp16, DataType::int64})
      for (std::size_t count : {std::size_t{1}, std::size_t{37}, std::size_t{100000}})
        for (bool in_place : {false, true}) {
          const ReduceOp op = dtype == DataType::fp16 ? ReduceOp::max : ReduceOp::sum;
          const auto all = schedules(*algo, dtype, op, count, in_place);
          auto ipc = make_ipc_operation(all[world_rank()], world_group(), MemoryKind::cuda,
                                        WaitPolicy::yield);
          const long long w = wrong_bytes(*ipc, all, count) + wrong_bytes(*ipc, all, count + 1);
          if (w) ADD_FAILURE() << to_string(algo->coll) << "/" << algo->name << " " << to_string(dtype)
                               << " count " << count << (in_place ? " in place" : "");
          wrong += w;
        }
  EXPECT_EQ(sum_all(wrong), 0);
}

TEST(IpcCuda, NcclMatchesReferenceOnIntegers) {
  if (const std::string why = missing_device(); !why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  if (!nccl_built()) GTEST_SKIP() << "built without NCCL";
  long long wrong = 0;
  for (Collective coll : kAllCollectives)
    for (bool in_place : {false, true}) {
      // Integer sums are exact in any order, so any schedule is the oracle.
      const auto all = schedules(algorithms_for(coll).front(), DataType::int32, ReduceOp::sum,
                                 1000, in_place);
      auto nccl = make_nccl_operation(coll, DataType::int32, ReduceOp::sum, in_place, 1000,
                                      world_group(), {});
      wrong += wrong_bytes(*nccl, all, 5);
    }
  EXPECT_EQ(sum_all(wrong), 0);
}

}  // namespace
}  // namespace cb::ipc::test
