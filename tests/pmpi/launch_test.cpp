// libcollbench-pmpi.so from the outside: launches fallback_app (an ordinary
// MPI program) under mpiexec with the library preloaded and checks what a
// user sees: the right answers, each fallback notice printed exactly once,
// the counters table, one clear line and a non-zero exit for bad settings,
// and the auto (model) and selection-file modes. meson passes the paths in
// PMPI_PRELOAD (the library, after the sanitizer runtime in a sanitized
// build), PMPI_APP, PMPI_MPIEXEC and PMPI_FIXTURES.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct Result {
  int status = -1;
  std::string output;
};

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Runs `mpiexec -n ranks` of the app with the library preloaded and
// `settings` (VAR=value ...) in its environment; stdout and stderr together.
Result launch(const std::string& settings, int ranks = 3, const char* app = "PMPI_APP") {
  const std::string cmd =
      fmt::format("env {} {} -n {} -genv LD_PRELOAD {} {} 2>&1", settings,
                  env_or_empty("PMPI_MPIEXEC"), ranks, env_or_empty("PMPI_PRELOAD"),
                  env_or_empty(app));
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  std::size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int st = pclose(pipe);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

class PmpiLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (env_or_empty("PMPI_PRELOAD").empty() || env_or_empty("PMPI_APP").empty() ||
        env_or_empty("PMPI_MPIEXEC").empty())
      GTEST_SKIP() << "PMPI_PRELOAD, PMPI_APP and PMPI_MPIEXEC are set by meson test";
  }
};

TEST_F(PmpiLaunch, FallbacksGiveTheLibrarysAnswerAndNoticeOnce) {
  const Result r = launch("COLLBENCH_ALGO=ring");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app: ok"), 3) << r.output;
  // Two calls each, three ranks: one notice per kind, from rank 0 only.
  EXPECT_EQ(occurrences(r.output, "MPI_Allgather falls back to the MPI library: non-contiguous "
                                  "datatype"),
            1)
      << r.output;
  EXPECT_EQ(occurrences(r.output, "MPI_Allreduce falls back to the MPI library: user-defined op"),
            1)
      << r.output;
  EXPECT_EQ(occurrences(r.output,
                        "MPI_Allreduce falls back to the MPI library: intercommunicator"),
            1)
      << r.output;
  EXPECT_EQ(occurrences(r.output, "MPI_Reduce_scatter falls back to the MPI library: "
                                  "MPI_Reduce_scatter counts differ per rank"),
            1)
      << r.output;
  EXPECT_EQ(occurrences(r.output, "collbench-pmpi: notice:"), 4) << r.output;
  // Rank 0 ran 2 allreduces and 2 alltoalls as schedules; 2 allgathers and
  // 2 + 2 allreduces fell back.
  EXPECT_EQ(occurrences(r.output, "fallback-app: schedules 4, fallbacks allgather 2 allreduce 4"),
            1)
      << r.output;
}

TEST_F(PmpiLaunch, SizeLimitFallsBack) {
  // The app's 20-byte allreduces exceed 16 B; its 24-byte alltoalls, at the
  // world size 2 on a one-rank half, are S = 24 B too.
  const Result r = launch("COLLBENCH_ALGO=ring COLLBENCH_MAX_BYTES=16", 2);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app: ok"), 2) << r.output;
  EXPECT_EQ(occurrences(r.output, "MPI_Allreduce falls back to the MPI library: size above "
                                  "COLLBENCH_MAX_BYTES, 20 B > 16 B"),
            1)
      << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app: schedules 0,"), 1) << r.output;
}

TEST_F(PmpiLaunch, DefaultIsTheMpiLibraryWithoutNotices) {
  const Result r = launch("");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app: ok"), 3) << r.output;
  EXPECT_EQ(occurrences(r.output, "collbench-pmpi"), 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app: schedules 0, fallbacks allgather 0 allreduce 0"),
            1)
      << r.output;
}

TEST_F(PmpiLaunch, ReportTableAtFinalize) {
  const Result r = launch("COLLBENCH_ALGO=rhd COLLBENCH_REPORT=1", 2);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "# collbench-pmpi counters"), 1) << r.output;
  // alltoall has no rhd: it falls back with that reason, and says so once.
  EXPECT_NE(r.output.find("alltoall        no such algorithm for this collective"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("allreduce       rhd         17..32 B"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("allreduce       user-defined op"), std::string::npos) << r.output;
}

TEST_F(PmpiLaunch, BadValuesStopWithOneLine) {
  const struct {
    const char* settings;
    const char* line;
  } cases[] = {
      {"COLLBENCH_ALGO=fastest", "collbench-pmpi: COLLBENCH_ALGO=fastest: unknown algorithm; "
                                 "accepted: mpi, auto, selection, naive"},
      {"COLLBENCH_ALLTOALL=rhd", "collbench-pmpi: COLLBENCH_ALLTOALL=rhd: no such algorithm for "
                                 "alltoall; accepted: mpi, auto, selection, naive"},
      {"COLLBENCH_ALGO=auto", "collbench-pmpi: COLLBENCH_ALGO=auto needs COLLBENCH_PARAMS=FILE"},
      {"COLLBENCH_REPORT=yes", "collbench-pmpi: COLLBENCH_REPORT=yes: accepted: 0, 1"},
      {"COLLBENCH_MAX_BYTES=12Q", "collbench-pmpi: COLLBENCH_MAX_BYTES=12Q: not a size"},
      {"COLLBENCH_SELECTION=/nonexistent.json",
       "collbench-pmpi: COLLBENCH_SELECTION=/nonexistent.json: cannot read"},
      // Bounded reads: /dev/zero once grew each rank to gigabytes, silently.
      {"COLLBENCH_SELECTION=/dev/zero",
       "collbench-pmpi: COLLBENCH_SELECTION=/dev/zero: cannot read /dev/zero: it is a character "
       "device"},
      {"COLLBENCH_PARAMS=/dev/zero",
       "collbench-pmpi: COLLBENCH_PARAMS=/dev/zero: cannot read /dev/zero: it is a character "
       "device"},
  };
  for (const auto& c : cases) {
    const Result r = launch(c.settings, 2);
    EXPECT_EQ(r.status, 2) << c.settings << "\n" << r.output;
    EXPECT_EQ(occurrences(r.output, c.line), 1) << c.settings << "\n" << r.output;
    EXPECT_EQ(occurrences(r.output, "collbench-pmpi:"), 1) << c.settings << "\n" << r.output;
    EXPECT_EQ(occurrences(r.output, "fallback-app"), 0) << c.settings << "\n" << r.output;
  }
}

// A calibration file holds one transport; COLLBENCH_PARAMS_TRANSPORT naming
// another was once ignored in silence (the hostile probe, tests/probe/).
TEST_F(PmpiLaunch, ParamsTransportOtherThanTheCalibrationsStops) {
  const std::string cal = env_or_empty("PMPI_FIXTURES") + "/../models/calibration-ipc.csv";
  const Result r =
      launch("COLLBENCH_ALGO=auto COLLBENCH_PARAMS=" + cal + " COLLBENCH_PARAMS_TRANSPORT=mpi", 2);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(occurrences(r.output, "collbench-pmpi: COLLBENCH_PARAMS_TRANSPORT=mpi: "), 1)
      << r.output;
  EXPECT_EQ(occurrences(r.output, "holds transport ipc-host only"), 1) << r.output;
  EXPECT_EQ(occurrences(r.output, "collbench-pmpi:"), 1) << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app"), 0) << r.output;
}

// Ranks given different settings (mpiexec's per-rank -env) once waited for
// each other for ever without a word; now every rank stops with one line.
TEST_F(PmpiLaunch, SettingsThatDifferBetweenRanksStopTheJobWithOneLine) {
  const std::string app = env_or_empty("PMPI_APP");
  const std::string cmd = fmt::format(
      "timeout 60 {} -genv LD_PRELOAD {} -n 1 -env COLLBENCH_ALGO ring {} : -n 1 -env "
      "COLLBENCH_ALGO {} {} 2>&1",
      env_or_empty("PMPI_MPIEXEC"), env_or_empty("PMPI_PRELOAD"), app, "{}", app);
  for (const char* other : {"rhd", "nonsense"}) {
    SCOPED_TRACE(other);
    const std::string line = fmt::format(fmt::runtime(cmd), other);
    Result r;
    FILE* pipe = popen(line.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char buf[4096];
    std::size_t n = 0;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
    const int st = pclose(pipe);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(occurrences(r.output, "collbench-pmpi: COLLBENCH_ALGO differs between the ranks "
                                    "(rank 0 has COLLBENCH_ALGO=ring)"),
              1)
        << r.output;
    EXPECT_EQ(occurrences(r.output, "collbench-pmpi:"), 1) << r.output;
    EXPECT_EQ(occurrences(r.output, "fallback-app"), 0) << r.output;
  }
}

// A calibration with a time that is not a time (nan, inf, negative) or a
// file cut short is refused, as predict and fit refuse it.
TEST_F(PmpiLaunch, CalibrationWithBadTimesIsRefused) {
  const std::string good = env_or_empty("PMPI_FIXTURES") + "/params.csv";
  std::FILE* in = std::fopen(good.c_str(), "r");
  ASSERT_NE(in, nullptr);
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) text.append(buf, n);
  std::fclose(in);
  ASSERT_FALSE(text.empty());
  const std::string path = ::testing::TempDir() + "/cut-params.csv";
  std::FILE* out = std::fopen(path.c_str(), "w");
  ASSERT_NE(out, nullptr);
  // "2.6e-11\n" becomes "2.6e-1": a valid number, only the missing newline tells.
  std::fwrite(text.data(), 1, text.size() - 2, out);
  std::fclose(out);
  const Result r = launch("COLLBENCH_ALGO=auto COLLBENCH_PARAMS=" + path, 2);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(occurrences(r.output, "collbench-pmpi: COLLBENCH_PARAMS="), 1) << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app"), 0) << r.output;
  std::remove(path.c_str());
}

// auto does no harm (models/do_no_harm.hpp): it runs its pick only where
// the model predicts a gain over MPICH's own choice, priced from the default
// tree in libmpich. At p = 2 the 20-byte allreduces go to naive, predicted
// faster than MPICH's own choice; for the small alltoalls the model predicts
// no gain over MPICH's own choice, so they stay with the library.
// Rank 0 alone says once at start-up how auto prices and decides.
TEST_F(PmpiLaunch, AutoPicksFromTheModel) {
  const std::string params = env_or_empty("PMPI_FIXTURES") + "/params.csv";
  const Result r = launch("COLLBENCH_ALGO=auto COLLBENCH_REPORT=1 COLLBENCH_PARAMS=" + params, 2);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app: ok"), 2) << r.output;
  EXPECT_EQ(occurrences(r.output, "collbench-pmpi: auto prices with"), 1) << r.output;
  EXPECT_EQ(occurrences(r.output, "the library's own choice is priced from MPICH's default tree"),
            1)
      << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app: schedules 2,"), 1) << r.output;
  EXPECT_NE(r.output.find("allreduce       naive       17..32 B"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("alltoall        mpi         17..32 B"), std::string::npos)
      << r.output;
}

TEST_F(PmpiLaunch, SelectionFileRoutesCalls) {
  const std::string file = env_or_empty("PMPI_FIXTURES") + "/selection.json";
  const Result r = launch("COLLBENCH_REPORT=1 COLLBENCH_SELECTION=" + file, 2);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "fallback-app: ok"), 2) << r.output;
  // The fixture sends 20-byte allreduces to recursive doubling (butterfly)
  // and alltoall to MPICH's scattered algorithm (collbench's naive).
  EXPECT_NE(r.output.find("allreduce       butterfly   17..32 B"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("alltoall        naive"), std::string::npos) << r.output;
}

// Concurrent collectives on distinct communicators from two threads.
TEST_F(PmpiLaunch, ThreadMultipleOnDistinctCommunicators) {
  if (env_or_empty("PMPI_THREADS_APP").empty()) GTEST_SKIP() << "PMPI_THREADS_APP unset";
  const Result r = launch("COLLBENCH_ALGO=ring", 2, "PMPI_THREADS_APP");
  EXPECT_EQ(r.status, 0) << r.output;
  if (r.output.find("threads-app: skipped") != std::string::npos)
    GTEST_SKIP() << "this MPI does not provide MPI_THREAD_MULTIPLE";
  EXPECT_EQ(occurrences(r.output, "threads-app: ok"), 2) << r.output;
  // Rank 0: 2 threads x 100 rounds x (allreduce + allgather), all as ring.
  EXPECT_EQ(occurrences(r.output, "threads-app: ring schedules 400"), 1) << r.output;
}

}  // namespace
