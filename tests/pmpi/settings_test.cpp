// The library's MPI-free parts: parsing a choice (what each environment value
// means and the one-line error for a bad one), walking an MPICH selection
// tree as MPICH does (first match per level), mapping MPICH's algorithm names
// back to collbench's, and the counters' size buckets.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "transports/mpi/pmpi/config.hpp"
#include "transports/mpi/pmpi/counters.hpp"
#include "transports/mpi/pmpi/selection.hpp"

namespace cb::pmpi {
namespace {

TEST(PmpiSettings, ChoicesByName) {
  Config config;
  const Choice ring = parse_choice(Collective::allreduce, "COLLBENCH_ALGO", "ring", config, false);
  EXPECT_EQ(ring.mode, Mode::named);
  EXPECT_EQ(ring.slot, algorithm_slot(Collective::allreduce, "ring"));
  EXPECT_GT(ring.slot, 0);
  EXPECT_EQ(parse_choice(Collective::allreduce, "COLLBENCH_ALGO", "mpi", config, false).mode,
            Mode::mpi);
  // A global name this collective lacks: its calls fall back (slot -1).
  EXPECT_EQ(parse_choice(Collective::alltoall, "COLLBENCH_ALGO", "rhd", config, false).slot, -1);
}

TEST(PmpiSettings, BadChoicesNameTheValueAndWhatIsAccepted) {
  Config config;
  const auto message = [&](Collective coll, const char* var, const char* value, bool per) {
    try {
      parse_choice(coll, var, value, config, per);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(Collective::alltoall, "COLLBENCH_ALLTOALL", "rhd", true),
            "COLLBENCH_ALLTOALL=rhd: no such algorithm for alltoall; accepted: mpi, auto, "
            "selection, naive, ps, ring, butterfly, bruck, pairwise");
  EXPECT_NE(message(Collective::allreduce, "COLLBENCH_ALGO", "fastest", false)
                .find("COLLBENCH_ALGO=fastest: unknown algorithm; accepted: mpi, auto"),
            std::string::npos);
  EXPECT_NE(message(Collective::allreduce, "COLLBENCH_ALGO", "auto", false)
                .find("needs COLLBENCH_PARAMS"),
            std::string::npos);
  EXPECT_NE(message(Collective::allreduce, "COLLBENCH_ALGO", "selection", false)
                .find("needs COLLBENCH_SELECTION"),
            std::string::npos);
  config.params = models::ModelParams{1e-6, 1e-10, 1e-11};
  EXPECT_EQ(message(Collective::allreduce, "COLLBENCH_ALGO", "auto", false), "no error");
}

TEST(PmpiSettings, EnvironmentNames) {
  EXPECT_EQ(env_name(Collective::allreduce), "COLLBENCH_ALLREDUCE");
  EXPECT_EQ(env_name(Collective::reduce_scatter), "COLLBENCH_REDUCE_SCATTER");
}

using Json = nlohmann::ordered_json;

Json tree() {
  return Json::parse(R"({
    "collective=allreduce": {"comm_type=intra": {
      "comm_hierarchy=parent": {"algorithm=MPIR_Allreduce_intra_smp": {}},
      "comm_size<=2": {"avg_msg_size<=64": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                       "avg_msg_size=any": {"count<pow2": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                                            "count=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}}},
      "comm_size=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}}},
    "collective=allgather": {"comm_type=intra": {
      "comm_size=pow2": {"total_msg_size<1024": {"algorithm=MPIR_Allgather_intra_recursive_doubling": {}},
                         "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_brucks": {}}}},
    "collective=alltoall": {"comm_type=intra": {
      "is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
      "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoall_intra_scattered": {}}}}
  })");
}

TEST(PmpiSelection, FirstMatchPerLevelAsMpich) {
  const Json t = tree();
  // comm_hierarchy is not understood: never matches, the walk goes on.
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::allreduce, 2, 8, 4, false}),
            "MPIR_Allreduce_intra_recursive_doubling");
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::allreduce, 2, 1000, 4, false}),
            "MPIR_Allreduce_intra_reduce_scatter_allgather");
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::allreduce, 3, 8, 4, false}),
            "MPIR_Allreduce_intra_reduce_scatter_allgather");
  // total_msg_size is block * p: 100 B blocks at p = 8 are 800 B, at p = 16 1600 B.
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::allgather, 8, 100, 1, false}),
            "MPIR_Allgather_intra_recursive_doubling");
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::allgather, 16, 100, 1, false}),
            "MPIR_Allgather_intra_ring");
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::allgather, 6, 100, 1, false}),
            "MPIR_Allgather_intra_brucks");
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::alltoall, 4, 3, 8, true}),
            "MPIR_Alltoall_intra_pairwise_sendrecv_replace");
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::alltoall, 4, 3, 8, false}),
            "MPIR_Alltoall_intra_scattered");
  // No reduce_scatter_block subtree: nothing matches.
  EXPECT_EQ(select_mpich_algorithm(t, {Collective::reduce_scatter, 4, 3, 8, false}), "");
}

TEST(PmpiSelection, MpichNamesMapBackToCollbench) {
  EXPECT_EQ(collbench_algorithm(Collective::allreduce, "MPIR_Allreduce_intra_recursive_doubling"),
            "butterfly");
  EXPECT_EQ(collbench_algorithm(Collective::allreduce,
                                "MPIR_Allreduce_intra_reduce_scatter_allgather"),
            "rhd");
  EXPECT_EQ(collbench_algorithm(Collective::alltoall, "MPIR_Alltoall_intra_scattered"), "naive");
  EXPECT_EQ(collbench_algorithm(Collective::allreduce, "MPIR_Allreduce_intra_smp"), "");
}

TEST(PmpiCounters, SizeBuckets) {
  EXPECT_EQ(size_bucket(0), 0);
  EXPECT_EQ(size_bucket(1), 1);
  EXPECT_EQ(size_bucket(2), 2);
  EXPECT_EQ(size_bucket(8), 4);
  EXPECT_EQ(size_bucket(9), 5);
  EXPECT_EQ(size_bucket(16), 5);
  count_call(Collective::alltoall, 1, 12, 0);
  EXPECT_EQ(calls(Collective::alltoall, 1), 1u);
  EXPECT_NE(report().find("  alltoall        naive       9..16 B                  1             12"),
            std::string::npos)
      << report();
}

}  // namespace
}  // namespace cb::pmpi
