// scripts/testbed.sh as a user meets it: bad input gets one line and exit 2;
// a real 2-host testbed runs a short verified sweep whose fitted bandwidth is
// within 10% of the configured one; `down`, and a signal during `up` or
// `run`, leave nothing behind. Needs root and network namespaces (skips,
// saying which is missing). Each test uses its own testbed name, so runs in
// several checkouts on one machine do not collide.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;  // exit status, or 128 + signal
  std::string out;  // stdout and stderr together
};

using cb::test::slurp;

using cb::test::cells_of;
using cb::test::lines_of;

Result shell(const std::string& cmd, const fs::path& log) {
  const int rc = std::system((cmd + " >" + log.string() + " 2>&1").c_str());
  Result r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  r.out = slurp(log);
  return r;
}

class Testbed : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = "t";
    name_ += std::to_string(::getpid() % 1000000);
    dir_ = fs::temp_directory_path() /
           ("collbench-testbed-" + name_ + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    script_ = std::string(CB_SOURCE_DIR) + "/scripts/testbed.sh";
  }
  void TearDown() override {
    if (::geteuid() == 0) testbed("down");
    fs::remove_all(dir_);
  }

  // Runs `testbed.sh CMD --name <ours> ARGS`.
  Result testbed(const std::string& cmd, const std::string& args = "") {
    return shell("CB_BUILD_DIR=" + std::string(CB_BUILD_DIR) + " bash " + script_ + " " + cmd +
                     " --name " + name_ + " " + args,
                 dir_ / "log");
  }

  // One 2-host ring all-gather sweep on the testbed that is up, fitted;
  // `fitted` is the link's rate in B/s (1/β of the global fit).
  void sweep_and_fit(int attempt, double& fitted) {
    const fs::path at = dir_ / ("attempt" + std::to_string(attempt));
    fs::create_directories(at);
    const fs::path csv = at / "sweep.csv";
    // Sizes where the link's β term is 20-300x its latency: the machine's load
    // (other builds and tests) delays ranks by milliseconds, which a fit over
    // small sizes would trade against β.
    const Result run = testbed("run", "-- run --coll allgather --algo ring -b 256K -e 4M -f 2 "
                                      "--time-budget 0.1 -d float --placement out --csv " +
                                          csv.string());
    ASSERT_EQ(run.status, 0) << run.out;  // collbench exits non-zero on a wrong element
    EXPECT_NE(run.out.find("Wrong elements: 0"), std::string::npos) << run.out;
    // The fit takes each size's fastest sample as its time: the link's time
    // when the ranks had their cores. Medians also time the other jobs on this
    // machine's 2 cores (measured at load 25: medians up to 1.7x the minimum,
    // the minimum within 3-12% of the link's time).
    const fs::path mins = at / "mins.csv";
    {
      std::ofstream w(mins);
      int median_col = -1, min_col = -1;
      for (const auto& l : lines_of(slurp(csv))) {
        std::vector<std::string> f = cells_of(l);
        if (median_col < 0) {
          for (int i = 0; i < static_cast<int>(f.size()); ++i) {
            if (f[static_cast<std::size_t>(i)] == "time_median_us") median_col = i;
            if (f[static_cast<std::size_t>(i)] == "time_min_us") min_col = i;
          }
          ASSERT_GE(median_col, 0) << l;
          ASSERT_GE(min_col, 0) << l;
        } else {
          f[static_cast<std::size_t>(median_col)] = f[static_cast<std::size_t>(min_col)];
        }
        for (std::size_t i = 0; i < f.size(); ++i) w << (i ? "," : "") << f[i];
        w << '\n';
      }
    }
    const Result fit = shell(std::string(CB_BUILD_DIR) + "/harness/collbench fit " + mins.string() +
                                 " --out " + (at / "fit").string(),
                             at / "fit.log");
    ASSERT_EQ(fit.status, 0) << fit.out;
    double beta = 0;
    for (const auto& l : lines_of(slurp(at / "fit" / "fit.csv"))) {
      if (l.rfind("global,mpi,", 0) != 0) continue;
      const std::vector<std::string> f = cells_of(l);
      ASSERT_GT(f.size(), 11u) << l;
      beta = std::stod(f[11]);  // beta_s_per_B
    }
    ASSERT_GT(beta, 0) << slurp(at / "fit" / "fit.csv");
    fitted = 1 / beta;
  }

  void need_namespaces() {
    if (::geteuid() != 0) GTEST_SKIP() << "the testbed needs root (network namespaces, tc, iptables)";
    const std::string probe = name_ + "-probe";
    if (shell("ip netns add " + probe + " && ip netns del " + probe, dir_ / "probe").status != 0)
      GTEST_SKIP() << "cannot create network namespaces here (ip netns add failed)";
    if (!CB_HAVE_NFQ_DELAY)
      GTEST_SKIP() << "cb-nfq-delay is not built (libnetfilter-queue-dev missing)";
  }

  // The testbed's namespaces and state directory.
  std::string leftovers() {
    std::string left = shell("ip netns list | grep -E '^" + name_ + "-' || true", dir_ / "ns").out;
    if (fs::exists("/run/collbench-testbed/" + name_)) left += "state directory; ";
    return left;
  }
  std::vector<int> processes_in_namespaces() {
    const std::string out =
        shell("for ns in $(ip netns list | awk '{print $1}' | grep -E '^" + name_ +
                  "-'); do ip netns pids $ns; done",
              dir_ / "pids")
            .out;
    std::vector<int> pids;
    for (const auto& l : lines_of(out)) pids.push_back(std::stoi(l));
    return pids;
  }
  // Whether `pid` still runs a second after it was killed: a zombie waiting
  // for init to reap it has ended.
  static bool alive(int pid) {
    for (int i = 0; i < 20; ++i) {
      const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
      const auto paren = stat.rfind(')');
      if (stat.empty() || paren == std::string::npos || stat.compare(paren + 2, 1, "Z") == 0)
        return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
  }

  // Bad input: exit 2 with one line that names `needle`.
  void expect_refused(const std::string& cmd, const std::string& args, const std::string& needle) {
    SCOPED_TRACE(cmd + " " + args);
    const Result r = testbed(cmd, args);
    EXPECT_EQ(r.status, 2) << r.out;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 1u) << r.out;
    EXPECT_NE(lines[0].find(needle), std::string::npos) << lines[0];
  }

  // Sends `sig` to a background `testbed.sh` once `ready` (a shell test) holds
  // or after `after`, and waits for it.
  int interrupt(const std::string& cmd, const std::string& args, int sig,
                const std::string& ready, std::chrono::seconds limit) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const std::string line = "exec env CB_BUILD_DIR=" + std::string(CB_BUILD_DIR) + " bash " +
                               script_ + " " + cmd + " --name " + name_ + " " + args + " >" +
                               (dir_ / "bg.log").string() + " 2>&1";
      ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end &&
           shell(ready, dir_ / "ready").status != 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ::kill(pid, sig);
    // A script that ignores the signal fails here with its log, not as a
    // suite timeout (TearDown's `down` then removes what it left).
    int rc = 0;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(45);
    while (::waitpid(pid, &rc, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > give_up) {
        ADD_FAILURE() << cmd << " did not end within 45 s of signal " << sig << ":\n"
                      << slurp(dir_ / "bg.log");
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &rc, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
  }

  std::string name_, script_;
  fs::path dir_;
};

TEST_F(Testbed, BadInputGetsOneLineAndExitTwo) {
  expect_refused("up", "--hosts 2 --latency 1ms --bandwidth 100Mbit --frobnicate", "--frobnicate");
  expect_refused("up", "--hosts 1 --latency 1ms --bandwidth 100Mbit", "--hosts '1'");
  expect_refused("up", "--hosts 2 --latency 1ms --bandwidth 100Mbps", "'100Mbps'");
  expect_refused("up", "--hosts 2 --latency fast --bandwidth 100Mbit", "'fast'");
  expect_refused("launch", "", "'launch'");
  // The documented ranges, refused before anything is built: a latency past
  // 10 s (it failed inside the delay daemon), a rate past 10 Gbit (accepted
  // and shown as mawk's 2147483647), a host count past bash's integers.
  expect_refused("up", "--hosts 2 --latency 11s --bandwidth 100Mbit", "'11s' is outside the accepted 0..10s");
  expect_refused("up", "--hosts 2 --latency 1ms --bandwidth 11Gbit", "'11Gbit' is outside the accepted 1Mbit..10Gbit");
  expect_refused("up", "--hosts 2 --latency 1ms --bandwidth 9999999999999999999999Gbit",
                 "is outside the accepted 1Mbit..10Gbit");
  expect_refused("up", "--hosts 2 --latency 1ms --bandwidth 999kbit", "'999kbit' is outside");
  expect_refused("up", "--hosts 99999999999999999999 --latency 1ms --bandwidth 1Gbit",
                 "--hosts '99999999999999999999' is not an integer in 2..64");
  expect_refused("run", "--np 99999999999999999999 -- list", "--np '99999999999999999999'");
  // Several ranks per host: K >= 1, and at most 64 ranks in all.
  expect_refused("up", "--hosts 2 --latency 1ms --bandwidth 100Mbit --ranks-per-host 0",
                 "--ranks-per-host '0' is not an integer in 1..64");
  expect_refused("up", "--hosts 3 --latency 1ms --bandwidth 100Mbit --ranks-per-host 22",
                 "is 66 ranks (accepted: at most 64 in all)");
  if (::geteuid() != 0) GTEST_SKIP() << "the rest needs root";
  expect_refused("run", "-- list", "is not up");
  // exec: the program is checked before the testbed (an executable file, or
  // a name on PATH), and --env takes VAR=VALUE.
  expect_refused("exec", "", "exec needs '-- PROGRAM ARGS'");
  expect_refused("exec", "-- /nonexistent/app", "'/nonexistent/app' is not an executable file");
  expect_refused("exec", "-- no-such-program-cb", "'no-such-program-cb' is not a program on PATH");
  expect_refused("exec", "--env FOO -- true", "--env 'FOO' is not VAR=VALUE");
  expect_refused("exec", "--np 0 -- true", "--np '0'");
  expect_refused("exec", "-- true", "is not up");
  // Without root: one line, exit 2 (run as nobody). The script comes on stdin,
  // opened by root, and it runs from /, because nobody may not enter a clone made by mktemp -d
  // (mode 0700).
  const Result r = shell("cd / && setpriv --reuid=65534 --regid=65534 --clear-groups bash -s -- status --name " +
                             name_ + " < " + script_,
                         dir_ / "nobody");
  EXPECT_EQ(r.status, 2) << r.out;
  ASSERT_EQ(lines_of(r.out).size(), 1u) << r.out;
  EXPECT_NE(r.out.find("needs root"), std::string::npos) << r.out;
}

// --dry-run converts and checks the setting without root or namespaces: the
// ends of the documented ranges are accepted, and a rate past 2^31 bit/s is
// printed whole (mawk's %d printed 2147483647 for 3Gbit).
TEST_F(Testbed, DryRunPrintsTheSettingAsUpWouldBuildIt) {
  const Result r = testbed("up", "--hosts 3 --latency 2.5ms --bandwidth 3Gbit --dry-run");
  EXPECT_EQ(r.status, 0) << r.out;
  ASSERT_EQ(lines_of(r.out).size(), 1u) << r.out;
  EXPECT_NE(r.out.find("3 hosts, one-way latency 2500 us, bandwidth 3000000000 bit/s"),
            std::string::npos)
      << r.out;
  const Result top = testbed("up", "--hosts 64 --latency 10s --bandwidth 10Gbit --dry-run");
  EXPECT_EQ(top.status, 0) << top.out;
  EXPECT_NE(top.out.find("64 hosts, one-way latency 10000000 us, bandwidth 10000000000 bit/s"),
            std::string::npos)
      << top.out;
  const Result bottom = testbed("up", "--hosts 2 --latency 0 --bandwidth 1Mbit --dry-run");
  EXPECT_EQ(bottom.status, 0) << bottom.out;
  EXPECT_NE(bottom.out.find("one-way latency 0 us, bandwidth 1000000 bit/s"), std::string::npos)
      << bottom.out;
  const Result two = testbed("up", "--hosts 3 --latency 2ms --bandwidth 200Mbit --ranks-per-host 2 --dry-run");
  EXPECT_EQ(two.status, 0) << two.out;
  EXPECT_NE(two.out.find("3 hosts x 2 ranks, one-way latency 2000 us"), std::string::npos) << two.out;
  // Nothing was built.
  EXPECT_FALSE(fs::exists("/run/collbench-testbed/" + name_));
}

TEST_F(Testbed, UpTwiceIsRefusedAndDownLeavesNothing) {
  need_namespaces();
  const Result up = testbed("up", "--hosts 2 --latency 1ms --bandwidth 100Mbit");
  ASSERT_EQ(up.status, 0) << up.out;
  const std::vector<int> pids = processes_in_namespaces();
  EXPECT_FALSE(pids.empty()) << "the delay daemon should run in the bridge namespace";
  expect_refused("up", "--hosts 2 --latency 1ms --bandwidth 100Mbit", "already up");
  const Result down = testbed("down");
  EXPECT_EQ(down.status, 0) << down.out;
  EXPECT_EQ(leftovers(), "");
  for (int pid : pids) EXPECT_FALSE(alive(pid)) << "process " << pid << " survived down";
}

// `up` run under a lock (`flock LOCK scripts/testbed.sh up ...`, as measurements
// are serialised) releases the lock when it returns: the delay daemon, which
// stays up, holds none of the caller's descriptors.
TEST_F(Testbed, UpUnderALockLeavesTheLockFree) {
  need_namespaces();
  const std::string lock = (dir_ / "measure.lock").string();
  const Result up = shell("flock " + lock + " env CB_BUILD_DIR=" + std::string(CB_BUILD_DIR) +
                              " bash " + script_ + " up --name " + name_ +
                              " --hosts 2 --latency 1ms --bandwidth 100Mbit",
                          dir_ / "log");
  ASSERT_EQ(up.status, 0) << up.out;
  EXPECT_FALSE(processes_in_namespaces().empty()) << "the delay daemon should run";
  const Result free = shell("flock -n " + lock + " true", dir_ / "lock.log");
  EXPECT_EQ(free.status, 0) << "the lock is still held while the testbed is up";
  EXPECT_EQ(testbed("down").status, 0);
}

TEST_F(Testbed, SignalDuringUpOrRunLeavesNothing) {
  need_namespaces();
  // TERM once the bridge namespace exists, in the middle of building links.
  const int up = interrupt("up", "--hosts 8 --latency 1ms --bandwidth 100Mbit", SIGTERM,
                           "ip netns list | grep -q '^" + name_ + "-h2'", std::chrono::seconds(30));
  EXPECT_NE(up, 0);
  EXPECT_EQ(leftovers(), "") << slurp(dir_ / "bg.log");

  ASSERT_EQ(testbed("up", "--hosts 2 --latency 1ms --bandwidth 100Mbit").status, 0);
  // INT once collbench ranks are running (a sweep far longer than the wait).
  const int run = interrupt(
      "run", "-- run --coll allgather --algo ring -b 1M -e 64M -n 50 -w 1", SIGINT,
      "ip netns pids " + name_ + "-h2 | grep -q .", std::chrono::seconds(30));
  EXPECT_NE(run, 0);
  const std::vector<int> pids = processes_in_namespaces();
  EXPECT_TRUE(pids.empty());
  EXPECT_EQ(leftovers(), "") << slurp(dir_ / "bg.log");
}

// Bytes through interface `dev` of namespace `ns` so far, both directions.
long long interface_bytes(const std::string& ns, const std::string& dev, const fs::path& log) {
  const std::string stats = "/sys/class/net/" + dev + "/statistics/";
  const Result r =
      shell("ip netns exec " + ns + " cat " + stats + "rx_bytes " + stats + "tx_bytes", log);
  long long sum = 0;
  for (const auto& l : lines_of(r.out)) sum += std::stoll(l);
  return sum;
}

// Two ranks per host: the header and CSV record 2 nodes x 2 ranks, the
// hierarchical algorithms verify, and ranks on one host talk through shared
// memory: their 4 MiB all-gathers cross neither host 1's link nor its
// loopback (TCP between them would), while the same job placed one rank per
// host, or two on each host, moves them over the link. Byte counts, not times: the load on this
// machine cannot make it flake.
TEST_F(Testbed, RanksOnOneHostShareMemoryRanksOnTwoUseTheLink) {
  need_namespaces();
  ASSERT_EQ(testbed("up", "--hosts 2 --latency 200us --bandwidth 200Mbit --ranks-per-host 2").status, 0);
  expect_refused("run", "--ranks-per-host 3 -- list", "--ranks-per-host 3 exceeds the 2 rank slots per host");
  expect_refused("run", "--np 5 -- list", "--np 5 exceeds the 2 hosts x 2 ranks");
  const fs::path csv = dir_ / "hier.csv";
  const Result hier = testbed("run", "-- run --coll allreduce,allgather --algo ring,hier2d:ring/ring -b 1K -e 64K "
                                     "-f 8 -n 2 -w 0 --placement out --csv " + csv.string());
  ASSERT_EQ(hier.status, 0) << hier.out;
  EXPECT_NE(hier.out.find("# Node layout: 2 nodes x 2 ranks"), std::string::npos) << hier.out;
  EXPECT_NE(hier.out.find("Wrong elements: 0"), std::string::npos) << hier.out;
  const std::vector<std::string> rows = lines_of(slurp(csv));
  ASSERT_GT(rows.size(), 1u);
  const std::vector<std::string> head = cells_of(rows[0]);
  const auto col = [&](const std::string& n) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), n) - head.begin());
  };
  ASSERT_LT(col("ranks_per_node"), head.size()) << rows[0];
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> f = cells_of(rows[i]);
    EXPECT_EQ(f[col("nodes")], "2") << rows[i];
    EXPECT_EQ(f[col("ranks_per_node")], "2") << rows[i];
  }

  // Each rank sends 2 MiB per all-gather; 4 of them (3 timed, 1 warm-up)
  // and the check: >= 8 MiB each way between the two ranks.
  const std::string job = "-- run --coll allgather --algo ring -b 4M -e 4M -n 3 -w 1 -d float --placement out";
  const auto link = [&] { return interface_bytes(name_ + "-br", "h1", dir_ / "bytes"); };
  const auto loopback = [&] { return interface_bytes(name_ + "-h1", "lo", dir_ / "bytes"); };
  const long long link_before = link(), loopback_before = loopback();
  const Result local = testbed("run", "--np 2 " + job);
  ASSERT_EQ(local.status, 0) << local.out;
  EXPECT_NE(local.out.find("# Node layout: 1 node of 2 ranks"), std::string::npos) << local.out;
  const long long local_link = link() - link_before, local_loopback = loopback() - loopback_before;
  const Result remote = testbed("run", "--np 2 --ranks-per-host 1 " + job);
  ASSERT_EQ(remote.status, 0) << remote.out;
  EXPECT_NE(remote.out.find("# Node layout: 2 nodes x 1 ranks"), std::string::npos) << remote.out;
  const long long remote_link = link() - link_before - local_link;
  // The launch itself (Hydra's proxy to mpiexec, UCX's wire-up) crosses the
  // link and the loopback in both cases: kilobytes.
  EXPECT_LT(local_link, 1 << 20) << local.out;
  EXPECT_LT(local_loopback, 1 << 20) << local.out;
  EXPECT_GT(remote_link, 16ll << 20) << remote.out;
  // Two ranks on each of the two hosts: the ring crosses the link (UCX's
  // shared memory must not reach the other host's ranks).
  const long long both_before = link();
  const Result both = testbed("run", job);
  ASSERT_EQ(both.status, 0) << both.out;
  EXPECT_GT(link() - both_before, 16ll << 20) << both.out;
}

// exec runs a plain MPI program on 4 hosts (where UCX over TCP can hang in
// MPI_Finalize) to its end: its output, exit status 0 and no process left;
// with the PMPI library given through --env LD_PRELOAD, behind the testbed's
// own announcing library, the program's all-reduce runs collbench's ring;
// a rank that fails without finalizing makes the job fail.
TEST_F(Testbed, ExecRunsAPlainMpiProgram) {
  need_namespaces();
  ASSERT_EQ(testbed("up", "--hosts 4 --latency 100us --bandwidth 1Gbit").status, 0);
  const std::string app = CB_EXEC_APP;
  const Result plain = testbed("exec", "--np 4 -- " + app);
  EXPECT_EQ(plain.status, 0) << plain.out;
  EXPECT_NE(plain.out.find("sum=10 ranks=4"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("collbench ring calls"), std::string::npos) << plain.out;
  EXPECT_LE(processes_in_namespaces().size(), 1u) << "only the delay daemon may be left";

  if (std::string(CB_PMPI_LIB).empty()) GTEST_SKIP() << "the PMPI library is not built";
  const Result pre = testbed("exec", "--np 3 --env LD_PRELOAD=" + std::string(CB_PMPI_LIB) +
                                         " --env COLLBENCH_ALLREDUCE=ring -- " + app);
  EXPECT_EQ(pre.status, 0) << pre.out;
  EXPECT_NE(pre.out.find("sum=6 ranks=3"), std::string::npos) << pre.out;
  EXPECT_NE(pre.out.find("collbench ring calls=1"), std::string::npos) << pre.out;

  const Result failed = testbed("exec", "--np 4 --grace 2 -- " + app + " --fail-rank 2");
  EXPECT_NE(failed.status, 0) << failed.out;
  EXPECT_NE(failed.out.find("sum=10 ranks=4"), std::string::npos) << failed.out;
}

// Long on purpose: one end-to-end scenario (network up, sweep, fit, checks) in order.
TEST_F(Testbed, ShortSweepFitsTheConfiguredBandwidth) {
  need_namespaces();
  // 200 Mbit/s: 25e6 B/s on the wire; TCP/IP headers in a 9000 B frame take 0.7%.
  const double configured = 25e6;
  ASSERT_EQ(testbed("up", "--hosts 2 --latency 200us --bandwidth 200Mbit").status, 0);
  // The 10% holds for the release build. A sanitizer build runs the
  // ranks' own code many times slower (TSan: ~5-15x), and on 2 shared cores
  // that alone cost the link's rate 5-13% in whole-suite TSan runs
  // (2026-11-23, load 5-7; 0.95 when run alone); the race and memory checks
  // are what such a build is for, so it allows 25% and still fails a link
  // shaped wrongly (half or double the rate).
  const double tolerance = CB_SANITIZED ? 0.25 : 0.10;
  // Load only slows the ranks (and the user-space delay of each packet), so a
  // rate above the link's is a wrong link at once, and one below it is
  // measured again: a CI run saw 0.74 (test 2x slower than alone, where it
  // reads 0.93-0.97). A link shaped wrongly is slow every time.
  constexpr int kAttempts = 3;
  std::vector<double> ratios;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    double fitted = 0;
    ASSERT_NO_FATAL_FAILURE(sweep_and_fit(attempt, fitted));
    ratios.push_back(fitted / configured);
    std::printf("attempt %d: fitted bandwidth %.4g B/s, configured %.4g B/s (ratio %.4f)\n",
                attempt, fitted, configured, ratios.back());
    if (ratios.back() >= 1 - tolerance) break;
  }
  std::string all;
  for (double r : ratios) all += (all.empty() ? "" : ", ") + std::to_string(r);
  EXPECT_LE(ratios.back(), 1 + tolerance) << "fitted / configured per attempt: " << all;
  EXPECT_GE(ratios.back(), 1 - tolerance) << "fitted / configured per attempt: " << all;

  const std::vector<int> pids = processes_in_namespaces();
  ASSERT_EQ(testbed("down").status, 0);
  EXPECT_EQ(leftovers(), "");
  for (int pid : pids) EXPECT_FALSE(alive(pid)) << "process " << pid << " survived down";
}

}  // namespace
