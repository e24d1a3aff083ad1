// The library's MPI-free parts: parsing a choice (what each environment value
// means and the one-line error for a bad one), walking an MPICH selection
// tree as MPICH does (first match per level), mapping MPICH's algorithm names
// back to collbench's, and the counters (size buckets, per-thread library counts).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "algorithms/registry.hpp"
#include "models/calibration.hpp"

#include "transports/mpi/pmpi/config.hpp"
#include "transports/mpi/pmpi/counters.hpp"
#include "transports/mpi/pmpi/selection.hpp"
#include "transports/mpi/pmpi/settings.hpp"

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

// auto: the closed forms' fastest. Latency-bound (8 B at p = 8): butterfly's
// lg p rounds; bandwidth-bound (4 MiB): rhd (ring's bytes in fewer rounds).
TEST(PmpiModelChoice, ClosedFormsPickTheFastest) {
  Config config;
  config.params = models::ModelParams{1e-6, 1e-9, 1e-10};
  EXPECT_EQ(predicted_best(config, Collective::allreduce, 8, DataType::fp32, ReduceOp::sum, false,
                           2),
            algorithm_slot(Collective::allreduce, "butterfly"));
  EXPECT_EQ(predicted_best(config, Collective::allreduce, 8, DataType::fp32, ReduceOp::sum, false,
                           1 << 20),
            algorithm_slot(Collective::allreduce, "rhd"));
}

// Do no harm (models/do_no_harm.hpp): with MPICH's tree, auto keeps the
// library's own collective where the best schedule's predicted gain over
// the library's choice (recursive doubling = butterfly here) lies inside
// the validated error, and where MPICH picks an algorithm collbench cannot
// price (smp); beyond the error the schedule runs.
TEST(PmpiModelChoice, AutoFallsBackToTheLibraryInsideTheValidatedError) {
  Config config;
  // Bandwidth-bound at 1 MiB, p = 8: butterfly moves log2(8) = 3 vectors,
  // rhd and ring 2 (p - 1) / p = 1.75: a predicted gain of about 1.7x.
  config.params = models::ModelParams{1e-9, 1e-9, 1e-10};
  const auto call = [&](std::size_t count) {
    return predicted_best(config, Collective::allreduce, 8, DataType::fp32, ReduceOp::sum, false,
                          count);
  };
  const std::size_t mib = 1 << 18;  // fp32 elements
  const int best = call(mib);
  ASSERT_GT(best, 0);
  ASSERT_NE(best, algorithm_slot(Collective::allreduce, "butterfly"));
  config.library_tree = nlohmann::ordered_json::parse(R"({"collective=allreduce": {
      "comm_type=intra": {"avg_msg_size<=64": {"algorithm=MPIR_Allreduce_intra_smp": {}},
                          "avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}}})");
  EXPECT_EQ(call(mib), best);  // no validated error: a predicted gain counts
  const auto with_error = [](double e) {
    return models::ValidatedError(
        fmt::format("transport,collective,ranks,bytes,rel_err,params\n"
                    "mpi,allreduce,8,1048576,{},calibration\n",
                    e),
        "predictions.csv", "calibration", "mpi");
  };
  config.validated = with_error(0.15);
  EXPECT_EQ(call(mib), best);
  config.validated = with_error(0.35);
  EXPECT_EQ(call(mib), kMpiSlot);
  config.validated.reset();
  EXPECT_EQ(call(2), kMpiSlot);  // 8 B: MPICH's smp, which nothing prices
}

struct ScopedEnv {
  std::vector<std::string> names;
  void set(const char* name, const std::string& value) {
    setenv(name, value.c_str(), 1);
    names.emplace_back(name);
  }
  ~ScopedEnv() {
    for (const std::string& n : names) unsetenv(n.c_str());
  }
};

std::string read_error() {
  try {
    read_config();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

// COLLBENCH_TERMS: read from a calibration file that measured them, used by
// auto; a file without them, a bad letter or no file is one clear error.
TEST(PmpiModelChoice, CalibratedTerms) {
  models::Calibration c;
  c.params = {1e-6, 1e-10, 2e-10};
  c.transport = "mpi";
  c.pingpong_sizes_B = {8, 16, 32, 64, 128, 256};
  const std::vector<double> pp = {1e-6, 1.01e-6, 1.02e-6, 1.05e-6, 1.1e-6, 1.2e-6};
  models::fit_terms(c, {pp, c.pingpong_sizes_B, pp, {4096, 8192}, {1e-6, 2.2e-6}, {4096, 8192},
                    {2e-6, 4.5e-6}, {1, 2, 4, 8}, {1e-6, 1.2e-6, 1.6e-6, 2.4e-6}, {1, 2, 4},
                    {0.1e-6, 0.15e-6, 0.25e-6}, 0.3e-6});
  const auto path = std::filesystem::temp_directory_path() / "cb-pmpi-calibration.csv";
  std::ofstream(path) << models::format_calibration(c);
  {
    ScopedEnv env;
    env.set("COLLBENCH_PARAMS", path.string());
    env.set("COLLBENCH_TERMS", "abcd");
    const Config config = read_config();
    const models::TermSet abcd{models::Term::range, models::Term::copy,
                               models::Term::concurrency, models::Term::overhead};
    EXPECT_EQ(config.terms, abcd);
    EXPECT_EQ(config.choice[0].mode, Mode::automatic);
    const int best = predicted_best(config, Collective::allreduce, 4, DataType::fp32,
                                    ReduceOp::sum, false, 1000);
    EXPECT_GT(best, 0);
    // The names read as the old letters do.
    env.set("COLLBENCH_TERMS", "range,copy,concurrency,overhead");
    EXPECT_EQ(read_config().terms, abcd);
    env.set("COLLBENCH_TERMS", "abz");
    EXPECT_EQ(read_error().rfind("COLLBENCH_TERMS=abz: 'abz' is not a term (accepted: names of "
                                 "range, copy, ",
                                 0),
              0u)
        << read_error();
    // (e) and (f) are terms like the rest: refused only because this file did
    // not measure them.
    env.set("COLLBENCH_TERMS", "abcdf");
    EXPECT_NE(read_error().find("does not hold term staged"), std::string::npos) << read_error();
    env.set("COLLBENCH_TERMS", "aba");
    EXPECT_NE(read_error().find("COLLBENCH_TERMS=aba: 'a' is named twice"), std::string::npos)
        << read_error();
  }
  {
    ScopedEnv env;
    env.set("COLLBENCH_TERMS", "a");
    EXPECT_NE(read_error().find("COLLBENCH_TERMS=a needs COLLBENCH_PARAMS=FILE"),
              std::string::npos);
  }
  {
    // A fit.csv holds no terms.
    const auto fit = std::filesystem::temp_directory_path() / "cb-pmpi-fit.csv";
    std::ofstream(fit) << "scope,transport,alpha_s,beta_s_per_B,gamma_s_per_B\n"
                          "global,mpi,1e-06,1e-10,0\n";
    ScopedEnv env;
    env.set("COLLBENCH_PARAMS", fit.string());
    env.set("COLLBENCH_TERMS", "a");
    EXPECT_NE(read_error().find("does not hold term range"), std::string::npos) << read_error();
    std::filesystem::remove(fit);
  }
  std::filesystem::remove(path);
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
  {
    Tally naive(Collective::alltoall, 1, 12);
    naive.add(0);
    EXPECT_EQ(calls(Collective::alltoall, 1), 1u);
  }
  EXPECT_EQ(calls(Collective::alltoall, 1), 1u);  // folded when the tally went
  EXPECT_NE(report().find("  alltoall        naive       9..16 B                  1             12"),
            std::string::npos)
      << report();
}

// The library's calls are counted per thread without a locked add; the
// counts of a live thread and of one that ended both reach calls() and the
// report.
TEST(PmpiCounters, LibraryCallsOfEveryThreadCount) {
  const std::uint64_t before = calls(Collective::allgather, kMpiSlot);
  count_library_call(Collective::allgather, 100, 0);
  count_library_call(Collective::allgather, 100, 0);
  EXPECT_EQ(calls(Collective::allgather, kMpiSlot), before + 2);
  std::thread other([] { count_library_call(Collective::allgather, 100, 0); });
  other.join();
  EXPECT_EQ(calls(Collective::allgather, kMpiSlot), before + 3);
  EXPECT_NE(report().find("  allgather       mpi         65..128 B                3            300"),
            std::string::npos)
      << report();
}

// The hashes the ranks compare at MPI_Init (settings.hpp): one per variable,
// changed by its value only, and "unset" apart from "empty".
TEST(PmpiSettings, HashesTellEveryVariableAndUnsetFromEmpty) {
  for (const char* name : kSettingNames) ::unsetenv(name);
  const auto unset = setting_hashes();
  ::setenv("COLLBENCH_ALGO", "", 1);
  const auto empty = setting_hashes();
  EXPECT_NE(unset[0], empty[0]);
  ::setenv("COLLBENCH_ALGO", "ring", 1);
  const auto ring = setting_hashes();
  ::setenv("COLLBENCH_ALGO", "rhd", 1);
  const auto rhd = setting_hashes();
  EXPECT_NE(ring[0], rhd[0]);
  for (std::size_t i = 1; i < kSettingNames.size(); ++i) EXPECT_EQ(ring[i], unset[i]) << i;
  EXPECT_EQ(describe_setting(0), "COLLBENCH_ALGO=rhd");
  ::unsetenv("COLLBENCH_ALGO");
  EXPECT_EQ(describe_setting(0), "COLLBENCH_ALGO unset");
  EXPECT_EQ(setting_hashes(), unset);
}

}  // namespace
}  // namespace cb::pmpi
