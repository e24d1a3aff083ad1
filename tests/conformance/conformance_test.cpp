// Conformance over transports: every registered algorithm (so every
// collective) x placement x count with several (datatype, op) pairs each
// (configs_for), run through each
// per-process transport of the build exactly as `collbench run` builds it
// (TransportSpec::make_operation on the harness's Group) and compared bit
// for bit with the reference executor on the same inputs, twice per
// operation (the second run proves nothing carries over). meson runs it under
// mpiexec -n 2, 3 and 4. A new transport is covered by being registered.
// The first run's inputs are verify's exact values; the second's are random
// bytes (any bit pattern, NaNs included): the reference runs the same
// schedule with the same kernels, so both must match to the bit. The simulator moves its bytes
// in-process and is checked the same way by transports/sim/tests.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "harness/runtime/transports.hpp"
#include "harness/runtime/group_mpi.hpp"
#include "transports/reference/verify.hpp"
#include "transports/reference/reference.hpp"

namespace cb {
namespace {

struct TypeOp {
  DataType dtype;
  ReduceOp op;
};
// Reducing collectives: every op over datatypes of each width and kind.
constexpr TypeOp kReducing[] = {
    {DataType::fp32, ReduceOp::sum}, {DataType::int32, ReduceOp::max},
    {DataType::bf16, ReduceOp::avg}, {DataType::int8, ReduceOp::prod},
    {DataType::fp64, ReduceOp::min}, {DataType::int32, ReduceOp::sum},
    {DataType::fp32, ReduceOp::max}, {DataType::fp16, ReduceOp::sum},
    {DataType::fp64, ReduceOp::avg}, {DataType::bf16, ReduceOp::min}};
// Data-movement collectives: the op is irrelevant; odd and wide element sizes.
constexpr TypeOp kMoving[] = {{DataType::int8, ReduceOp::sum}, {DataType::fp64, ReduceOp::sum}};

struct Config {
  const AlgorithmEntry* algo;
  TypeOp t;
  std::size_t count;
  bool in_place;
  std::size_t segment_bytes;
};

// Every count x placement with kPerSlot (datatype, op) pairs, taken in turn
// from the list (moving collectives: both), so each pair meets every
// algorithm several times at various counts without the full cross product
// (2 cores; the kernels themselves are tested in tests/kernels); plus small
// segments (several pipelined steps, several messages per pair).
constexpr std::size_t kPerSlot = 5;

std::vector<Config> configs_for(const AlgorithmEntry& algo, int p) {
  const std::span<const TypeOp> types =
      is_reducing(algo.coll) ? std::span<const TypeOp>(kReducing) : std::span<const TypeOp>(kMoving);
  const std::size_t counts[] = {0, 1, static_cast<std::size_t>(p - 1),
                                static_cast<std::size_t>(p + 1), 37, 1000};
  const std::size_t per_slot = std::min(kPerSlot, types.size());
  std::vector<Config> out;
  std::size_t next = 0;
  for (std::size_t count : counts)
    for (bool in_place : {false, true})
      for (std::size_t k = 0; k < per_slot; ++k)
        out.push_back({&algo, types[next++ % types.size()], count, in_place, 0});
  if (algo.segmented)
    for (std::size_t segment : {64, 512})
      for (bool in_place : {false, true}) out.push_back({&algo, types[0], 1000, in_place, segment});
  return out;
}

std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::byte> out(n);
  for (std::byte& b : out) b = static_cast<std::byte>(gen());
  return out;
}

// Wrong runs of this rank's output vs the reference for one configuration.
long long check(const TransportSpec& t, Group& world, const Config& c) {
  const int p = world.size(), me = world.rank();
  std::vector<Schedule> all;
  for (int r = 0; r < p; ++r)
    all.push_back(make_schedule(*c.algo, CollParams{c.algo->coll, p, r, c.count, c.t.dtype, c.t.op,
                                                    c.in_place, c.segment_bytes}));
  const Case cs{std::string(t.name), c.algo->coll, std::string(c.algo->name), c.t.dtype, c.t.op,
                c.in_place, p, c.count, c.segment_bytes};
  const std::unique_ptr<Operation> op = t.make_operation(cs, &all[me], world);
  long long wrong = 0;
  for (std::uint64_t seed : {11u, 12u}) {
    const VerifySpec spec{c.algo->coll, c.t.dtype, c.t.op, p, c.count, seed, InputMode::exact};
    std::vector<std::vector<std::byte>> inputs;
    for (int r = 0; r < p; ++r)
      inputs.push_back(seed == 11 ? make_input(spec, r)
                                  : random_bytes(all[r].input_count() * element_size(c.t.dtype),
                                                 seed * 1000 + static_cast<std::uint64_t>(r)));
    const auto expected = run_reference(all, inputs);
    op->write_input(inputs[me]);
    op->run();
    std::vector<std::byte> got(expected[me].size());
    op->read_output(got);
    // Not memcmp: count 0 gives empty vectors whose data() may be null.
    if (got != expected[me]) {
      ++wrong;
      ADD_FAILURE() << fmt::format(
          "{}: rank {}: {}/{} p={} {} {} count={} {} segment={} seed={} differs from the "
          "reference executor",
          t.name, me, to_string(c.algo->coll), c.algo->name, p, to_string(c.t.dtype),
          to_string(c.t.op), c.count, c.in_place ? "in" : "out", c.segment_bytes, seed);
    }
  }
  return wrong;
}

TEST(Conformance, EveryTransportMatchesTheReferenceExecutor) {
  // Yield: meson runs other tests beside this one, and -n 3/4 oversubscribe 2 cores.
  MpiGroup world(MPI_COMM_WORLD, WaitPolicy::yield);
  int transports_checked = 0;
  for (const TransportSpec& t : transports()) {
    if (!t.per_process || !t.available || !t.make_operation) continue;
    ++transports_checked;
    long long wrong = 0, configs = 0;
    for (const AlgorithmEntry* algo : all_algorithms())
      for (const Config& c : configs_for(*algo, world.size())) {
        wrong += check(t, world, c);
        ++configs;
      }
    EXPECT_GT(configs, 0) << "the registry has no algorithms";
    EXPECT_EQ(world.sum_to_root(static_cast<std::uint64_t>(wrong)), 0u) << t.name;
  }
  EXPECT_GT(transports_checked, 0) << "no per-process transport in this build";
}

}  // namespace
}  // namespace cb
