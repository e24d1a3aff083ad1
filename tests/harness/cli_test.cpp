// `collbench run` as a user meets it, single rank (no mpiexec): every bad
// input gives exit 2, one line naming the bad value and no output file; the
// CSV/JSON schema; an interrupted sweep keeps whole rows in FILE.partial and
// never leaves FILE, and --resume finishes it. The binary comes from
// $COLLBENCH (meson sets it).
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "tests/common/process.hpp"
#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;

using cb::test::Result;
using cb::test::slurp;

using cb::test::cells_of;
using cb::test::lines_of;

// The cell under column `name` in the first data row of a CSV's `lines`
// (header first), "missing" when there is no such column.
std::string cell_of(const std::vector<std::string>& lines, const std::string& name) {
  const std::vector<std::string> head = cells_of(lines.at(0)), row = cells_of(lines.at(1));
  const auto at = std::find(head.begin(), head.end(), name);
  return at == head.end() ? std::string("missing") : row.at(at - head.begin());
}

class Cli : public cb::test::CollbenchCliTest {
 protected:
  Cli() : CollbenchCliTest("collbench-cli") {}

  // `MPIEXEC -n RANKS collbench calibrate -e MAX_BYTES --out dir_/c.csv`, its
  // output in dir_/out and dir_/err; its exit status.
  int calibrate(const char* mpiexec, int ranks, const std::string& max_bytes) {
    const std::string cmd = std::string(mpiexec) + " -n " + std::to_string(ranks) + " " + bin_ +
                            " calibrate -e " + max_bytes + " --out " + (dir_ / "c.csv").string() +
                            " > " + (dir_ / "out").string() + " 2> " + (dir_ / "err").string();
    return std::system(cmd.c_str());
  }

  // Runs collbench with `args` (shell words), waiting for it.
  Result run(const std::string& args) { return cb::test::run_shell(bin_ + " " + args, dir_); }

  // Bad input: exit 2, one stderr line containing `needle`, no output files.
  void expect_refused(const std::string& args, const std::string& needle) {
    SCOPED_TRACE(args);
    const Result r =
        run(args + " --csv " + (dir_ / "r.csv").string() + " --json " + (dir_ / "r.json").string());
    EXPECT_EQ(r.status, 2);
    const auto err = lines_of(r.err);
    ASSERT_EQ(err.size(), 1u) << r.err;
    EXPECT_NE(err[0].find(needle), std::string::npos) << err[0];
    for (const char* f : {"r.csv", "r.csv.partial", "r.json", "r.json.partial", "r.json.tmp"})
      EXPECT_FALSE(fs::exists(dir_ / f)) << f;
  }
};

// One results row with a CI of +-1% around `us`.
std::string fmt_row(const std::string& transport, const std::string& algo, int ranks,
                    std::uint64_t bytes, double us) {
  std::ostringstream o;
  o << transport << ",allreduce," << algo << ",fp32,sum,out," << ranks << "," << bytes << ","
    << bytes / 4 << "," << us << "," << us * 0.99 << "," << us * 1.01 << "\n";
  return o.str();
}

// The identity columns (CSV.md key) of every data line of a results CSV.
std::vector<std::string> keys_of(const std::string& csv_text) {
  std::vector<std::string> keys;
  const auto lines = lines_of(csv_text);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::size_t end = 0;
    for (int commas = 0; commas < 8 && end != std::string::npos; ++commas)
      end = lines[i].find(',', end + (commas ? 1 : 0));
    keys.push_back(lines[i].substr(0, end));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST_F(Cli, EveryBadInputIsOneLineAndNoFile) {
  expect_refused("run --bogus", "--bogus");  // CLI11's own errors are one line too
  expect_refused("run -b 8X", "'8X'");
  expect_refused("run -e 1Q", "'1Q'");
  expect_refused("run -b 1M -e 8", "-b");
  expect_refused("run -f 1", "-f 1");
  expect_refused("run --coll allreduse", "'allreduse'");
  expect_refused("run --algo rign", "'rign'");
  expect_refused("run -d float17", "'float17'");
  expect_refused("run -o mean", "'mean'");
  expect_refused("run --transport carrier-pigeon", "'carrier-pigeon'");
  expect_refused("run --placement sideways", "'sideways'");
  expect_refused("run --wait nap", "'nap'");
  expect_refused("run --start later", "--start 'later' (valid: barrier, window, back-to-back)");
  expect_refused("run --start ''", "--start '' (valid: barrier, window, back-to-back)");
  expect_refused("run --order random", "--order 'random' (accepted: interleaved, size, algorithm)");
  expect_refused("run --coll allreduce --algo bruck", "'bruck'");  // undefined pair
  expect_refused("run --ranks 4", "rank count 4");                 // world has 1 process
  expect_refused("run -b 4096G -e 4096G", "available");            // does not fit in memory
}

TEST_F(Cli, SingleRankRunSaysHowToLaunchMoreAndWritesTheCsvSchema) {
  const fs::path csv = dir_ / "r.csv";
  const fs::path json = dir_ / "r.json";
  const Result r = run("run --quiet -n 3 -b 8 -e 64 --algo ring,mpi --csv " + csv.string() +
                       " --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("mpiexec -n"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("best by size"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "r.csv.partial"));

  const auto lines = lines_of(slurp(csv));
  ASSERT_EQ(lines.size(), 1u + 2 * 4 * 2);  // header + 2 algos x 4 sizes x 2 placements
  EXPECT_EQ(lines[0],
            "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,iterations,"
            "time_median_us,time_min_us,time_mean_us,time_p95_us,time_max_us,ci_lo_us,ci_hi_us,"
            "algbw_GBps,busbw_GBps,wrong,oversubscribed,wait_policy,alpha_s,beta_s_per_B,"
            "gamma_s_per_B,host,timestamp,collbench_version,git_rev,mpi_version,load_avg_1m,"
            "procs_running,known_issue,note,start,late,probe_small_us,probe_large_us,nodes,"
            "ranks_per_node,arrival,clock_sync_us,noskew_median_us,after_last_median_us,"
            "early_idle_us,step_ratio,after_last_ratio,early_idle_ratio,after_last_ci_lo_us,"
            "after_last_ci_hi_us,library_setting");
  EXPECT_EQ(lines[1].rfind("mpi,allreduce,ring,fp32,sum,out,1,8,2,3,", 0), 0u) << lines[1];

  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_TRUE(j["complete"].get<bool>());
  EXPECT_EQ(j["rows"].size(), 16u);
  EXPECT_EQ(j["rows"][0]["wrong"].get<int>(), 0);
  EXPECT_EQ(j["rows"][0]["iterations"].get<int>(), 3);
  EXPECT_EQ(j["configuration"]["iterations"].get<int>(), 3);
  EXPECT_FALSE(j["metadata"]["host"].get<std::string>().empty());
  // The load while measuring, in the metadata and in every row.
  EXPECT_GT(j["metadata"]["load"]["usable_cores"].get<int>(), 0);
  EXPECT_GE(j["metadata"]["load"]["runnable"].get<int>(), 1);
  EXPECT_TRUE(j["rows"][0]["load_avg_1m"].is_number());
  EXPECT_GE(j["rows"][0]["procs_running"].get<int>(), 1);
  ASSERT_EQ(j["metadata"]["ranks"].size(), 1u);
  EXPECT_EQ(j["metadata"]["ranks"][0]["pid"].get<long>() > 0, true);
}

// The (algorithm, bytes) of every data line, in file order.
std::vector<std::string> algorithm_sizes(const std::string& csv_text) {
  std::vector<std::string> out;
  const auto lines = lines_of(csv_text);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> f = cells_of(lines[i]);
    if (f.size() > 7) out.push_back(f[2] + "@" + f[7]);
  }
  return out;
}

// --order size (the default) times every algorithm of a size back to back, so
// a drift of the machine's speed hits them alike; --order algorithm runs one
// algorithm's sizes back to back. Same cases either way.
TEST_F(Cli, OrderPutsAlgorithmsOfASizeBackToBack) {
  const fs::path s = dir_ / "s.csv", a = dir_ / "a.csv";
  ASSERT_EQ(run("run --quiet -n 1 -b 8 -e 32 -f 4 --algo ring,naive --placement out --csv " +
                s.string()).status, 0);
  ASSERT_EQ(run("run --quiet -n 1 -b 8 -e 32 -f 4 --algo ring,naive --placement out "
                "--order algorithm --csv " + a.string()).status, 0);
  EXPECT_EQ(algorithm_sizes(slurp(s)),
            (std::vector<std::string>{"ring@8", "naive@8", "ring@32", "naive@32"}));
  EXPECT_EQ(algorithm_sizes(slurp(a)),
            (std::vector<std::string>{"ring@8", "ring@32", "naive@8", "naive@32"}));
  EXPECT_EQ(keys_of(slurp(s)), keys_of(slurp(a)));
}

// What an nccl-tests user greps for: the sweep settings and the rank map in
// the header, and the closing "# Avg bus bandwidth    : X" line.
TEST_F(Cli, ConsoleHasNcclTestsHeaderAndAverageBusBandwidthLine) {
  const Result r = run("run --quiet -n 3 -b 8 -e 64 --algo ring --placement out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# Sweep: transport mpi, collectives allreduce, algorithms ring, sizes "
                       "-b 8 .. -e 64 (x2)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# Timing: 3 iterations, warm-up 1, check on"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# Load at start: load average "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# Using ranks\n#  Rank   0 Pid "), std::string::npos) << r.out;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 3u);
  // Last: "#"; before it the mean busbw over the algorithm's rows, as
  // nccl-tests prints it, saying which algorithm (one rank moves nothing:
  // busbw factor (p-1)/p = 0).
  EXPECT_EQ(lines.back(), "#");
  EXPECT_EQ(lines[lines.size() - 2], "# Avg bus bandwidth    : 0 (ring: mean busbw of its 4 rows)")
      << r.out;
  EXPECT_EQ(lines[lines.size() - 3], "# Out of bounds values : 0 OK");
}

// OSU's -m [MIN:]MAX and -x (warm-up) are the same sweep as -b/-e and -w.
TEST_F(Cli, OsuAliasesGiveTheSameSweep) {
  const fs::path a = dir_ / "a.csv", b = dir_ / "b.csv";
  ASSERT_EQ(run("run --quiet -n 2 -b 16 -e 256 -w 2 --algo ring --csv " + a.string()).status, 0);
  ASSERT_EQ(run("run --quiet -n 2 -m 16:256 -x 2 --algo ring --csv " + b.string()).status, 0);
  EXPECT_EQ(keys_of(slurp(a)), keys_of(slurp(b)));
  EXPECT_EQ(lines_of(slurp(b)).size(), 1u + 5 * 2);  // 16..256 B, both placements
  expect_refused("run -m 16:256 -b 8", "-m 16:256 with -b 8");  // one way to give the range
  expect_refused("run -m 1X:4K", "'1X'");
}

// OSU's and nccl-tests' letters that mean something else here get one line
// saying what to use; the ones that mean the same work.
TEST_F(Cli, OsuAndNcclTestsHabitsGetOneLineSayingWhatToUse) {
  expect_refused("run -i 1000 -x 200 -m 1024:1024", "use -n 1000 (timed iterations) and -w");
  expect_refused("run -m 1024:4096 -i 1000", "OSU's -m");
  expect_refused("run -x 10 -f 4", "OSU's -f (full statistics) is always on");
  expect_refused("run -g 4", "ranks come from the launcher: mpiexec -n N");
  expect_refused("run -w 2 -x 2", "-x");  // one way to give the warm-up
  EXPECT_EQ(run("run --quiet -n 1 -b 8 -e 8 -g 1 --algo ring").status, 0);
  EXPECT_EQ(run("run --quiet -n 1 -b 8 -e 64 -i 8 --algo ring").status, 0);  // nccl-tests' -i
}

// A sweep CSV for `recommend`: allreduce on `ranks` ranks, naive fast below
// 4 KiB and ring above, with CIs of +-1%.
std::string sweep_csv(int ranks, const std::string& transport = "mpi") {
  std::string out =
      "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,time_median_us,"
      "ci_lo_us,ci_hi_us\n";
  for (std::uint64_t b = 64; b <= (1u << 20); b *= 4) {
    const double naive = 10 + static_cast<double>(b) / 100;
    const double ring = 30 + static_cast<double>(b) / 1000;
    for (const auto& [algo, t] : {std::pair{"naive", naive}, std::pair{"ring", ring}})
      out += fmt_row(transport, algo, ranks, b, t);
  }
  return out;
}

TEST_F(Cli, RecommendAnswersInShortLinesAndWritesItsFilesTogether) {
  fs::create_directories(dir_ / "study" / "a");
  fs::create_directories(dir_ / "study" / "b");
  const std::string p8 = sweep_csv(8);
  std::ofstream(dir_ / "study" / "a" / "sweep.csv") << sweep_csv(4) + p8.substr(p8.find('\n') + 1);
  std::ofstream(dir_ / "study" / "b" / "sweep.csv") << sweep_csv(4);
  const fs::path out = dir_ / "rec";
  const Result r = run("recommend " + (dir_ / "study").string() + " --out " + out.string() +
                       " --mpich-default " + (dir_ / "tree.json").string());
  // No MPICH tree at that path: refused before anything is written.
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_FALSE(fs::exists(out / "recommendations.csv"));
  std::ofstream(dir_ / "tree.json")
      << R"({"collective=allreduce": {"comm_type=intra": {"algorithm=MPIR_Allreduce_intra_smp": {}}},
            "collective=reduce_scatter_block": {"comm_type=intra": {"algorithm=A": {}}},
            "collective=allgather": {"comm_type=intra": {"algorithm=B": {}}},
            "collective=alltoall": {"comm_type=intra": {"algorithm=C": {}}}})";
  const Result ok = run("recommend " + (dir_ / "study").string() + " --out " + out.string() +
                        " --mpich-default " + (dir_ / "tree.json").string());
  ASSERT_EQ(ok.status, 0) << ok.err;
  const auto lines = lines_of(ok.out);
  EXPECT_LE(lines.size(), 40u);
  for (const std::string& l : lines) {
    if (l.rfind("# wrote ", 0) == 0) continue;  // names the --out path, as long as it is
    // Columns: UTF-8 code points ("·" is two bytes).
    const auto cols = std::count_if(l.begin(), l.end(), [](char c) { return (c & 0xC0) != 0x80; });
    EXPECT_LE(cols, 100) << l;
  }
  EXPECT_EQ(lines.at(0).substr(0, 11), "# mpi fp32,") << ok.out;
  EXPECT_NE(ok.out.find("\na allreduce p=4,8: naive <= 1 KiB · ring >= 4 KiB\n"), std::string::npos)
      << ok.out;
  EXPECT_NE(ok.out.find("\nb allreduce p=4: naive <= 1 KiB · ring >= 4 KiB\n"), std::string::npos)
      << ok.out;
  for (const char* f :
       {"recommendations.csv", "winners.csv", "selection-a.json", "selection-b.json"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
}

// Bad input: exit 2, one stderr line containing `needle`, nothing written.
TEST_F(Cli, RecommendRefusesBadInputInOneLine) {
  std::ofstream(dir_ / "empty.csv") << "";
  std::ofstream(dir_ / "garbage.csv") << "\x7f\x01ELF garbage, not a CSV\n";
  std::ofstream(dir_ / "apart.csv")
      << "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,time_median_us\n"
      << "mpi,allreduce,naive,fp32,sum,out,2,64,16,10\nmpi,allreduce,ring,fp32,sum,out,2,128,32,20\n";
  std::ofstream(dir_ / "good.csv") << sweep_csv(2);
  std::ofstream(dir_ / "cal.csv")
      << "alpha_s,beta_s_per_B,gamma_s_per_B,transport\n2e-6,1e-10,2e-10,ipc\n";
  fs::create_directories(dir_ / "nothing");
  const auto refused = [&](const std::string& args, const std::string& needle) {
    SCOPED_TRACE(args);
    const Result r = run("recommend " + args + " --out " + (dir_ / "o").string());
    EXPECT_EQ(r.status, 2);
    const auto err = lines_of(r.err);
    ASSERT_EQ(err.size(), 1u) << r.err;
    EXPECT_NE(err[0].find(needle), std::string::npos) << err[0];
    EXPECT_FALSE(fs::exists(dir_ / "o" / "recommendations.csv"));
  };
  refused((dir_ / "missing.csv").string(), "no such file or directory");
  refused((dir_ / "nothing").string(), "no sweep*.csv");
  refused((dir_ / "empty.csv").string(), "empty.csv");
  refused((dir_ / "garbage.csv").string(), "garbage.csv");
  refused((dir_ / "apart.csv").string(), "no size that two of them share");
  refused((dir_ / "good.csv").string() + " --calibration " + (dir_ / "cal.csv").string(),
          "calibrates transport ipc");
  refused((dir_ / "good.csv").string() + " --min-effect 2", "--min-effect 2");
}

TEST_F(Cli, RankSweepUnderMpiexecMarksOversubscribedRows) {
  const char* mpiexec = std::getenv("MPIEXEC");
  if (mpiexec == nullptr || *mpiexec == '\0') GTEST_SKIP() << "no mpiexec in this build";
  const fs::path csv = dir_ / "r.csv";
  const std::string cmd = std::string(mpiexec) + " -n 3 " + bin_ +
                          " run --quiet -n 3 -b 64 -e 64 --algo ring,mpi --ranks all --csv " +
                          csv.string() + " > " + (dir_ / "out").string() + " 2> " +
                          (dir_ / "err").string();
  // `--wait auto` also yields when the load average exceeds the online
  // cores (machine_busy): known only when it held before and after the run.
  const auto busy = [] {
    double load = 0;
    std::ifstream("/proc/loadavg") >> load;
    return load > static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  };
  const bool busy_before = busy();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir_ / "err");
  const bool busy_after = busy();
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const int cores = CPU_COUNT(&set);
  const auto lines = lines_of(slurp(csv));
  ASSERT_EQ(lines.size(), 1u + 2 * 2 * 2);  // ranks 2 and 3, 2 algorithms, 2 placements
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> f = cells_of(lines[i]);
    ASSERT_GE(f.size(), 22u);
    const int ranks = std::stoi(f[6]);
    EXPECT_EQ(ranks, i <= 4 ? 2 : 3) << lines[i];
    EXPECT_EQ(f[19], "0") << "wrong elements: " << lines[i];
    EXPECT_EQ(f[20], ranks > cores ? "1" : "0") << lines[i];
    if (ranks > cores || (busy_before && busy_after)) {
      EXPECT_EQ(f[21], "yield") << lines[i];
    } else if (!busy_before && !busy_after) {
      EXPECT_EQ(f[21], "spin") << lines[i];
    }
  }
  EXPECT_EQ(slurp(dir_ / "err").find("outnumber") != std::string::npos, 3 > cores);
  // USAGE.md's promise: the section header says so too (it never printed once).
  const std::string out = slurp(dir_ / "out");
  EXPECT_EQ(out.find("# allreduce on 3 ranks, transport mpi, wait yield (OVERSUBSCRIBED: ranks "
                     "outnumber cores)") != std::string::npos,
            3 > cores)
      << out;
  EXPECT_NE(out.find("#  Rank   2 Pid "), std::string::npos) << out;  // all three in the map
}

// Hierarchical algorithms under mpiexec on a forced (emulated) layout of 2
// ranks per node: the results verify, the CSV records the layout, the header
// says it is forced; on the runtime's own layout (one node) they run flat
// with a note; an uneven layout is refused for hier2d in one line.
TEST_F(Cli, HierarchicalAlgorithmsRecordTheirNodeLayout) {
  const char* mpiexec = std::getenv("MPIEXEC");
  if (mpiexec == nullptr || *mpiexec == '\0') GTEST_SKIP() << "no mpiexec in this build";
  const fs::path csv = dir_ / "r.csv";
  const auto launch = [&](const std::string& ranks, const std::string& args) {
    const std::string cmd = std::string(mpiexec) + " -n " + ranks + " " + bin_ +
                            " run --quiet -n 2 -b 64 -e 64 --mode-probe off --placement out " +
                            args + " --csv " + csv.string() + " > " + (dir_ / "out").string() +
                            " 2> " + (dir_ / "err").string();
    return std::system(cmd.c_str());
  };
  // --coll all: hier: has no all-to-all, so 2 + 2 + 2 + 1 rows.
  ASSERT_EQ(launch("4", "--ranks-per-node 2 --coll all --algo hier:tree/ring,hier2d:naive/naive"), 0)
      << slurp(dir_ / "err");
  const auto lines = lines_of(slurp(csv));
  ASSERT_EQ(lines.size(), 1u + 7);
  EXPECT_EQ(cell_of(lines, "nodes"), "2");
  EXPECT_EQ(cell_of(lines, "ranks_per_node"), "2");
  const std::vector<std::string> head = cells_of(lines[0]);
  const auto wrong = std::find(head.begin(), head.end(), "wrong") - head.begin();
  for (std::size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(cells_of(lines[i]).at(wrong), "0") << lines[i];
  EXPECT_NE(slurp(dir_ / "out").find("# Node layout: 2 nodes x 2 ranks (forced by --ranks-per-node"),
            std::string::npos) << slurp(dir_ / "out");

  ASSERT_EQ(launch("2", "--algo hier2d:ring/ring"), 0) << slurp(dir_ / "err");
  EXPECT_NE(slurp(dir_ / "err").find("note: hier2d:ring/ring on one node (2 ranks)"),
            std::string::npos) << slurp(dir_ / "err");
  EXPECT_EQ(cell_of(lines_of(slurp(csv)), "nodes"), "1");

  EXPECT_EQ(WEXITSTATUS(launch("3", "--ranks-per-node 2 --algo hier2d:ring/ring")), 2);
  const auto err = lines_of(slurp(dir_ / "err"));
  ASSERT_GE(err.size(), 1u);
  EXPECT_NE(err[0].find("3 ranks at 2 per node leave 1 on the last node"), std::string::npos)
      << err[0];
}

// --start window over MPI: clocks synchronized, every rank started at an agreed
// time. Checks the row contract, not timings (a shared 2-core machine makes
// any timing bound flaky): start and late filled, every kept iteration counted,
// statistics ordered, and the late iterations bounded by the tries allowed.
TEST_F(Cli, WindowStartUnderMpiexecFillsStartAndLate) {
  const char* mpiexec = std::getenv("MPIEXEC");
  if (mpiexec == nullptr || *mpiexec == '\0') GTEST_SKIP() << "no mpiexec in this build";
  const fs::path csv = dir_ / "w.csv", json = dir_ / "w.json";
  // 3 ranks: over 2 cores they wait asleep, which the window must survive too.
  const std::string cmd = std::string(mpiexec) + " -n 3 " + bin_ +
                          " run --quiet --start window -n 4 -b 8 -e 1K -f 32 --algo ring,mpi "
                          "--ranks 2,3 --placement out --csv " + csv.string() + " --json " +
                          json.string() + " > " + (dir_ / "out").string() + " 2> " +
                          (dir_ / "err").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir_ / "err");
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["configuration"]["start"].get<std::string>(), "window");
  ASSERT_EQ(j["rows"].size(), 2u * 2 * 2);  // 2 rank counts x 2 algorithms x 2 sizes
  for (const auto& row : j["rows"]) {
    SCOPED_TRACE(row.dump());
    EXPECT_EQ(row["start"].get<std::string>(), "window");
    EXPECT_GE(row["clock_sync_us"].get<double>(), 0);  // the sync's accuracy bound
    EXPECT_EQ(row["wrong"].get<int>(), 0);
    const int late = row["late"].get<int>();
    const int n = row["iterations"].get<int>();
    EXPECT_GE(late, 0);
    // 4 kept unless every try was late (then all are kept: late == iterations).
    EXPECT_TRUE(n == 4 || late == n);
    EXPECT_LE(late, 4 * 4 + 16);  // the tries allowed (timing.cpp)
    const double lo = row["time_min_us"].get<double>(), med = row["time_median_us"].get<double>(),
                 hi = row["time_max_us"].get<double>();
    EXPECT_GT(lo, 0);
    EXPECT_LE(lo, med);
    EXPECT_LE(med, hi);
  }
  EXPECT_NE(slurp(dir_ / "out").find("start window"), std::string::npos) << slurp(dir_ / "out");
  // The default stays barrier, with an empty late cell (and empty probe
  // cells: one rank has no peer to probe; and no --arrival columns).
  const fs::path b = dir_ / "b.csv";
  ASSERT_EQ(run("run --quiet -n 2 -b 8 -e 8 --algo ring --csv " + b.string()).status, 0);
  const std::vector<std::string> blines = lines_of(slurp(b));
  ASSERT_GE(blines.size(), 2u);
  const std::vector<std::string> head = cells_of(blines[0]);
  for (std::size_t i = 1; i < blines.size(); ++i) {
    const std::vector<std::string> cells = cells_of(blines[i]);
    ASSERT_EQ(cells.size(), head.size()) << blines[i];
    for (std::size_t k = 0; k < head.size(); ++k) {
      if (head[k] == "start") {
        EXPECT_EQ(cells[k], "barrier") << blines[i];
      }
      for (const char* empty : {"late", "probe_small_us", "probe_large_us", "arrival",
                                "clock_sync_us", "noskew_median_us", "after_last_median_us",
                                "early_idle_us", "step_ratio", "after_last_ratio",
                                "early_idle_ratio", "after_last_ci_lo_us", "after_last_ci_hi_us",
                                "library_setting"})
        if (head[k] == empty) {
          EXPECT_EQ(cells[k], "") << head[k] << ": " << blines[i];
        }
    }
  }
}

// Term `probe`'s probe (harness/sweep/mode_probe.hpp): on 2 ranks every row,
// a library baseline's too, carries both probes (positive microseconds);
// --mode-probe off leaves them empty; a bad value is refused in one line.
TEST_F(Cli, ModeProbeFillsItsColumnsOnTwoRanksAndOffLeavesThemEmpty) {
  expect_refused("run --mode-probe maybe", "bad --mode-probe 'maybe' (accepted: on, off)");
  const char* mpiexec = std::getenv("MPIEXEC");
  if (mpiexec == nullptr || *mpiexec == '\0') GTEST_SKIP() << "no mpiexec in this build";
  for (const char* mode : {"on", "off"}) {
    SCOPED_TRACE(mode);
    const fs::path json = dir_ / (std::string("probe-") + mode + ".json");
    const std::string cmd = std::string(mpiexec) + " -n 2 " + bin_ +
                            " run --quiet -n 2 -b 8 -e 1K -f 128 --algo ring,mpi --placement out"
                            " --mode-probe " + mode + " --json " + json.string() + " > " +
                            (dir_ / "out").string() + " 2> " + (dir_ / "err").string();
    ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir_ / "err");
    const nlohmann::json j = nlohmann::json::parse(slurp(json));
    EXPECT_EQ(j["configuration"]["mode_probe"].get<bool>(), std::string(mode) == "on");
    ASSERT_EQ(j["rows"].size(), 2u * 2);  // 2 algorithms x 2 sizes
    for (const auto& row : j["rows"]) {
      SCOPED_TRACE(row.dump());
      for (const char* col : {"probe_small_us", "probe_large_us"}) {
        if (std::string(mode) == "on") {
          ASSERT_TRUE(row[col].is_number());
          EXPECT_GT(row[col].get<double>(), 0);
        } else {
          EXPECT_TRUE(row[col].is_null());
        }
      }
    }
  }
}

// collbench calibrate end to end on 2 ranks: the file holds the probe its
// terms were kept to (ModeGuard, harness/calibrate/measure.cpp), and the output says how
// it kept to that mode: re-measured units, restarts (at most 2) and units
// left out of mode, each a count.
TEST_F(Cli, CalibrateWritesItsProbeAndSaysHowItKeptToItsMode) {
  const char* mpiexec = std::getenv("MPIEXEC");
  if (mpiexec == nullptr || *mpiexec == '\0') GTEST_SKIP() << "no mpiexec in this build";
  ASSERT_EQ(calibrate(mpiexec, 2, "64K"), 0) << slurp(dir_ / "err");
  const auto lines = lines_of(slurp(dir_ / "c.csv"));
  ASSERT_EQ(lines.size(), 2u);
  const auto column = [&](const std::string& name) { return cell_of(lines, name); };
  EXPECT_GT(std::stod(column("probe_small_s")), 0);
  EXPECT_GT(std::stod(column("probe_large_s")), 0);
  const std::string out = slurp(dir_ / "out");
  // sscanf, not std::regex: g++ 12's <regex> trips -Wmaybe-uninitialized in
  // the sanitizer build (scripts/test.sh --sanitize, -O1 -Werror).
  const std::size_t at = out.find("probe: kept to that mode: ");
  ASSERT_NE(at, std::string::npos) << out;
  int again = -1, restarts = -1, off = -1;
  ASSERT_EQ(std::sscanf(out.c_str() + at,
                        "probe: kept to that mode: %d unit(s) measured again after a probe in "
                        "another mode, %d restart(s) of the message sweep in a new mode, %d "
                        "unit(s) kept out of mode",
                        &again, &restarts, &off),
            3)
      << out;
  EXPECT_GE(again, 0);
  EXPECT_GE(restarts, 0);
  EXPECT_LE(restarts, 2);
  EXPECT_GE(off, 0);
}

// On 3 ranks calibrate also runs the fan-out of term `buffering`: the file holds its
// times at 4 KiB .. -e and a buffered fraction in [0, 1] at each, the output
// a line for it. (Ranks share the cores here, so the fractions say nothing
// about a network; their range and count are what is checked.)
TEST_F(Cli, CalibrateOnThreeRanksMeasuresSendBuffering) {
  const char* mpiexec = std::getenv("MPIEXEC");
  if (mpiexec == nullptr || *mpiexec == '\0') GTEST_SKIP() << "no mpiexec in this build";
  ASSERT_EQ(calibrate(mpiexec, 3, "16K"), 0) << slurp(dir_ / "err");
  const auto lines = lines_of(slurp(dir_ / "c.csv"));
  ASSERT_EQ(lines.size(), 2u);
  const auto column = [&](const std::string& name) { return cell_of(lines, name); };
  EXPECT_EQ(column("fanout_sizes_B"), "4096;8192;16384");
  EXPECT_EQ(column("buffered_size_B"), "4096;8192;16384");
  std::istringstream fractions(column("buffered_fraction"));
  int n = 0;
  for (std::string f; std::getline(fractions, f, ';'); ++n) {
    EXPECT_GE(std::stod(f), 0) << f;
    EXPECT_LE(std::stod(f), 1) << f;
  }
  EXPECT_EQ(n, 3);
  EXPECT_NE(slurp(dir_ / "out").find("buffering: send buffering (fan-out - 2 ping-pongs"),
            std::string::npos);
}

TEST_F(Cli, InterruptedSweepKeepsWholeRowsAndNoFinalFile) {
  const fs::path csv = dir_ / "r.csv";
  const fs::path json = dir_ / "r.json";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string out = (dir_ / "out").string();
    const std::string csv_s = csv.string(), json_s = json.string();
    std::freopen(out.c_str(), "w", stdout);
    std::freopen((out + ".err").c_str(), "w", stderr);
    // Long enough (thousands of configurations) to still run when signalled.
    ::execl(bin_.c_str(), bin_.c_str(), "run", "--quiet", "-n", "200", "--coll", "all", "--algo",
            "all", "-d", "all", "-o", "all", "-b", "8", "-e", "64K", "--csv", csv_s.c_str(),
            "--json", json_s.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const fs::path partial = dir_ / "r.csv.partial";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         (!fs::exists(partial) || lines_of(slurp(partial)).size() < 4))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  int rc = 0;
  ::waitpid(pid, &rc, 0);
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 128 + SIGINT);
  EXPECT_FALSE(fs::exists(csv)) << "an interrupted run must not leave a final CSV";
  EXPECT_FALSE(fs::exists(json));
  const auto lines = lines_of(slurp(partial));
  ASSERT_GE(lines.size(), 4u);
  const auto fields = [](const std::string& l) { return std::count(l.begin(), l.end(), ',') + 1; };
  for (const std::string& l : lines) EXPECT_EQ(fields(l), 51) << l;  // result_columns()
  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "r.json.partial"));
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_EQ(j["rows"].size(), lines.size() - 1);
  const std::string err = slurp(dir_ / "out.err");
  EXPECT_NE(err.find("interrupted"), std::string::npos) << err;
  // The exact command that finishes the sweep: the same arguments plus --resume.
  EXPECT_NE(err.find("resume with: " + bin_ + " run --quiet -n 200 --coll all --algo all -d all "
                     "-o all -b 8 -e 64K --csv " + csv.string() + " --json " +
                     json.string() + " --resume\n"),
            std::string::npos)
      << err;
}

TEST_F(Cli, ResumeKeepsEarlierRowsAndMeasuresOnlyTheRest) {
  const fs::path csv = dir_ / "r.csv";
  const std::string sweep = "run --quiet -n 2 --algo ring,rhd -b 8 -e 256 --placement out --csv " +
                            csv.string() + " --json " + (dir_ / "r.json").string();
  // The whole sweep once, for reference; then pretend a run was interrupted
  // after its first 3 rows (what FILE.partial would hold).
  ASSERT_EQ(run(sweep).status, 0);
  const std::string full = slurp(csv);
  const auto full_lines = lines_of(full);
  ASSERT_EQ(full_lines.size(), 1u + 2 * 6);
  fs::remove(csv);
  {
    std::ofstream partial(dir_ / "r.csv.partial");
    for (std::size_t i = 0; i < 4; ++i) partial << full_lines[i] << "\n";
  }

  const Result r = run(sweep + " --resume");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("3 rows kept"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "r.csv.partial"));
  const std::string resumed = slurp(csv);
  EXPECT_EQ(keys_of(resumed), keys_of(full)) << resumed;  // every configuration exactly once
  const auto resumed_lines = lines_of(resumed);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(resumed_lines[i], full_lines[i]);  // kept verbatim
  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "r.json"));
  ASSERT_EQ(j["rows"].size(), 12u);
  EXPECT_EQ(j["rows"][0]["bytes"].get<int>(), 8);  // an old row, numbers still numbers
  EXPECT_TRUE(j["rows"][0]["op"].is_string());

  // Nothing left to do: a second resume measures nothing and keeps the file.
  const Result again = run(sweep + " --resume");
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(keys_of(slurp(csv)), keys_of(full));
}

TEST_F(Cli, ResumeRefusesWithoutCsvOrOnAForeignFile) {
  EXPECT_EQ(run("run --quiet -n 2 -b 8 -e 8 --resume").status, 2);
  EXPECT_NE(slurp(dir_ / "err").find("--resume needs --csv"), std::string::npos);
  std::ofstream(dir_ / "r.csv") << "size,time\n8,1.0\n";
  const Result r = run("run --quiet -n 2 -b 8 -e 8 --resume --csv " + (dir_ / "r.csv").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("does not have the result columns"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir_ / "r.csv"), "size,time\n8,1.0\n");  // untouched
}

}  // namespace
