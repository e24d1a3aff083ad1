// What is the MPI transport's own (meson runs this under mpiexec -n 2, 3, 4):
// the `mpi` library baseline against verify's expected outputs, its known
// defects, oversubscription detection, and the schedule executor's blocking
// fast path (one MPI_Sendrecv per single exchange). Every algorithm against
// the reference executor with polled waits is tests/conformance/. Waits
// yield where ranks outnumber cores: spinning would crawl there.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "transports/reference/verify.hpp"
#include "transports/mpi/datatypes.hpp"
#include "transports/mpi/control_variables.hpp"
#include "transports/mpi/library_operation.hpp"
#include "transports/mpi/schedule_operation.hpp"
#include "transports/mpi/schedule_plan.hpp"
#include "transports/mpi/wait.hpp"
#include "transports/reference/reference.hpp"
#include "transports/watchdog.hpp"

namespace cb {
namespace {

int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
// Sum of `v` over ranks, everywhere: every rank must agree on failures.
long long all_sum(long long v) {
  long long out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

struct TypeOp {
  DataType dtype;
  ReduceOp op;
};
constexpr TypeOp kMoving[] = {{DataType::int8, ReduceOp::sum}, {DataType::fp64, ReduceOp::sum}};

// Every algorithm against the reference executor: tests/conformance/, for
// every per-process transport at once.

TEST(MpiTransport, LibraryBaselineMatchesTheExpectedOutput) {
  const bool oversubscribed_ = oversubscribed(MPI_COMM_WORLD);
  const int p = world_size();
  const int me = world_rank();
  long long wrong = 0;
  // fp16/bf16 go through the user-defined MPI_Op; avg divides after the sum.
  const TypeOp reducing[] = {{DataType::fp32, ReduceOp::sum},
                             {DataType::fp16, ReduceOp::sum},
                             {DataType::bf16, ReduceOp::max},
                             {DataType::int64, ReduceOp::avg},
                             {DataType::uint8, ReduceOp::prod}};
  for (Collective coll : kAllCollectives)
    for (TypeOp t : is_reducing(coll)
                        ? std::vector<TypeOp>(std::begin(reducing), std::end(reducing))
                        : std::vector<TypeOp>(std::begin(kMoving), std::end(kMoving)))
      for (std::size_t count : {std::size_t{1}, std::size_t{37}})
        for (bool in_place : {false, true}) {
          // Blocking collectives (spin) with a core per rank, else the
          // nonblocking form with yielding polls, as the harness picks.
          const WaitPolicy wait = oversubscribed_ ? WaitPolicy::yield : WaitPolicy::spin;
          MpiLibraryOperation op(coll, t.dtype, t.op, in_place, count, MPI_COMM_WORLD, wait);
          const VerifySpec spec{coll, t.dtype, t.op, p, count, 5, InputMode::exact};
          op.write_input(make_input(spec, me));
          op.run();
          std::vector<std::byte> got(output_count(coll, p, count) * element_size(t.dtype));
          op.read_output(got);
          const std::size_t w = count_wrong(spec, got, expected_output(spec, me));
          if (w)
            ADD_FAILURE() << fmt::format("rank {}: MPI {} {} {} count={} {}: {} wrong", me,
                                         to_string(coll), to_string(t.dtype), to_string(t.op),
                                         count, in_place ? "in" : "out", w);
          wrong += static_cast<long long>(w);
        }
  EXPECT_EQ(all_sum(wrong), 0);
}

TEST(MpiTransport, BaselineWrongOnlyWhereAKnownDefectIsReported) {
  // MPICH 4.0.2 gets unsigned min/max wrong (pmodels/mpich#6083): wherever
  // the baseline is wrong, mpi_known_defect must name it, so that rows are
  // marked (known_issue) and nobody blames the schedules.
  const int p = world_size();
  const int me = world_rank();
  const WaitPolicy wait = oversubscribed(MPI_COMM_WORLD) ? WaitPolicy::yield : WaitPolicy::spin;
  for (DataType dtype : {DataType::uint8, DataType::uint32, DataType::uint64, DataType::int32})
    for (ReduceOp op : {ReduceOp::min, ReduceOp::max}) {
      MpiLibraryOperation lib(Collective::allreduce, dtype, op, false, 37, MPI_COMM_WORLD, wait);
      const VerifySpec spec{Collective::allreduce, dtype, op, p, 37, 5, InputMode::exact};
      lib.write_input(make_input(spec, me));
      lib.run();
      std::vector<std::byte> got(37 * element_size(dtype));
      lib.read_output(got);
      const long long wrong =
          all_sum(static_cast<long long>(count_wrong(spec, got, expected_output(spec, me))));
      const std::string defect = mpi_known_defect(dtype, op);
      if (wrong > 0) {
        EXPECT_FALSE(defect.empty()) << to_string(dtype) << " " << to_string(op) << ": " << wrong
                                     << " wrong with no known defect reported";
      }
      if (dtype == DataType::int32) {
        EXPECT_EQ(defect, "");  // signed types compare right
      }
    }
}

MpiSchedulePlan plan_of(std::string_view algo, int p, int rank, std::size_t count) {
  return plan_schedule(make_schedule(
      algo, CollParams{Collective::allreduce, p, rank, count, DataType::fp32, ReduceOp::sum,
                       false, 0}));
}

TEST(MpiTransport, StepsOfAtMostOneReceiveAndOneSendRunAsOneCall) {
  // p = 2 butterfly: one exchange with the partner, which must be one call.
  const MpiSchedulePlan butterfly = plan_of("butterfly", 2, 0, 2);
  std::size_t exchanges = 0;
  for (const MpiSchedulePlan::PlannedStep& step : butterfly.steps) {
    EXPECT_EQ(step.one_exchange, !step.posts.empty());
    if (step.posts.size() == 2) {
      ++exchanges;
      EXPECT_FALSE(step.posts[0].is_send);  // the receive comes first
      EXPECT_TRUE(step.posts[1].is_send);
    }
  }
  EXPECT_EQ(exchanges, 1u);
  // A rank of the parameter server other than the root: one send, later one receive.
  for (const MpiSchedulePlan::PlannedStep& step : plan_of("ps", 3, 1, 4).steps)
    EXPECT_EQ(step.one_exchange, step.posts.size() == 1);
  // Direct at p = 4: three sends and three receives in one step stay nonblocking.
  bool many = false;
  for (const MpiSchedulePlan::PlannedStep& step : plan_of("naive", 4, 0, 4).steps) {
    if (step.posts.size() > 2) {
      many = true;
      EXPECT_FALSE(step.one_exchange);
    }
  }
  EXPECT_TRUE(many);
}

TEST(MpiTransport, BlockingFastPathMatchesTheReferenceExecutor) {
  // Spin without a watchdog is where run_plan makes blocking calls; with
  // more ranks than cores spinning ranks would take turns by timeslices.
  if (oversubscribed(MPI_COMM_WORLD)) GTEST_SKIP() << "ranks outnumber cores";
  ASSERT_LE(wait_timeout(), 0);
  const int p = world_size();
  const int me = world_rank();
  long long wrong = 0;
  for (const AlgorithmEntry* algo : all_algorithms())
    for (std::size_t count : {std::size_t{1}, std::size_t{37}, std::size_t{1000}})
      for (bool in_place : {false, true}) {
        const DataType dtype = is_reducing(algo->coll) ? DataType::fp32 : DataType::int8;
        std::vector<Schedule> all;
        std::vector<std::vector<std::byte>> inputs;
        for (int r = 0; r < p; ++r) {
          all.push_back(make_schedule(
              *algo, CollParams{algo->coll, p, r, count, dtype, ReduceOp::sum, in_place, 0}));
          std::mt19937 gen(static_cast<unsigned>(count * 131 + static_cast<std::size_t>(r)));
          // Small integers: sums are exact in fp32 whatever the order.
          std::vector<std::byte> in(all.back().input_count() * element_size(dtype));
          if (dtype == DataType::fp32) {
            std::vector<float> v(in.size() / sizeof(float));
            for (float& x : v) x = static_cast<float>(gen() % 64);
            std::memcpy(in.data(), v.data(), in.size());
          } else {
            for (std::byte& b : in) b = static_cast<std::byte>(gen());
          }
          inputs.push_back(std::move(in));
        }
        const auto expected = run_reference(all, inputs);
        MpiScheduleOperation op(all[me], MPI_COMM_WORLD, WaitPolicy::spin);
        op.write_input(inputs[me]);
        op.run();
        std::vector<std::byte> got(expected[me].size());
        op.read_output(got);
        if (got != expected[me]) {
          ++wrong;
          ADD_FAILURE() << fmt::format("rank {}: {}/{} p={} count={} {} differs", me,
                                       to_string(algo->coll), algo->name, p, count,
                                       in_place ? "in" : "out");
        }
      }
  EXPECT_EQ(all_sum(wrong), 0);
}

TEST(MpiTransport, OversubscriptionIsDetectedAgainstUsableCores) {
  const int ranks = ranks_on_node(MPI_COMM_WORLD);
  const int cores = usable_cores_on_node(MPI_COMM_WORLD);
  EXPECT_GE(cores, 1);
  EXPECT_EQ(oversubscribed(MPI_COMM_WORLD), ranks > cores);
}


TEST(MpiTransport, ControlVariablesAreTheSortedMpichSettingsOnly) {
  // A baseline row must say which of MPICH's selections ran: every
  // MPIR_CVAR_ setting, sorted (the launcher's order must not change the
  // cell), nothing else (UCX_, MPICH_ aliases and PATH are not the choice).
  const char* env[] = {"UCX_TLS=tcp",
                       "MPIR_CVAR_DEVICE_COLLECTIVES=none",
                       "PATH=/usr/bin",
                       "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp",
                       "MPICH_MAX_SMP_ALLREDUCE_MSG_SIZE=0",
                       "MPIR_CVAR_NOEQUALS",
                       nullptr};
  EXPECT_EQ(mpich_control_variables(env),
            "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp;MPIR_CVAR_DEVICE_COLLECTIVES=none");
  const char* none[] = {"UCX_TLS=tcp", nullptr};
  EXPECT_EQ(mpich_control_variables(none), "");
  EXPECT_EQ(mpich_control_variables(nullptr), "");
}

}  // namespace
}  // namespace cb
