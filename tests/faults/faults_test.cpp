// The fault suite (meson suite 'faults'): collbench as a user meets it when
// things go wrong. Hostile output paths, absurd numbers, a full disk, a
// closed stdout, signals at any moment (IPC setup included), a peer stopped
// with SIGSTOP, duplicated list entries. Every case drives the real binary
// ($COLLBENCH, with $MPIEXEC for multi-rank cases) and checks the one-line
// message, the exit status and what is left on disk. Each case takes seconds.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "tests/common/process.hpp"
#include "tests/common/text_files.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using cb::test::slurp;

using cb::test::lines_of;

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// collbench's shared-memory names now in /dev/shm created by one of `pids`
// ("collbench-<creator pid>-<start time>-<random>", transports/ipc/shm/
// segment.hpp). Only this test's own processes count: other tests and other
// users' runs on the machine create and remove names of their own meanwhile.
std::set<std::string> shm_names_of(const std::set<pid_t>& pids) {
  std::set<std::string> out;
  if (DIR* d = ::opendir("/dev/shm")) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind("collbench-", 0) != 0) continue;
      const pid_t creator = static_cast<pid_t>(std::atol(name.c_str() + 10));
      if (pids.count(creator)) out.insert(name);
    }
    ::closedir(d);
  }
  return out;
}

struct Result {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
  double seconds = 0;
};

// The pid of the collbench process whose PMI_RANK is `rank` under `launcher`.
pid_t rank_pid(const std::string& bin, int rank) {
  DIR* d = ::opendir("/proc");
  pid_t found = 0;
  while (const dirent* e = d ? ::readdir(d) : nullptr) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::error_code ec;
    const fs::path exe = fs::read_symlink(fs::path("/proc") / e->d_name / "exe", ec);
    if (ec || fs::weakly_canonical(exe, ec) != fs::weakly_canonical(bin, ec)) continue;
    const std::string env = slurp(fs::path("/proc") / e->d_name / "environ");
    if (env.find(std::string("PMI_RANK=") + std::to_string(rank) + '\0') == std::string::npos)
      continue;
    found = pid;
  }
  if (d) ::closedir(d);
  return found;
}

// Whether process `pid` has a handler for `sig` (SigCgt in /proc/PID/status).
bool catches(pid_t pid, int sig) {
  const std::string status = slurp(fs::path("/proc") / std::to_string(pid) / "status");
  const std::size_t at = status.find("SigCgt:");
  if (at == std::string::npos) return false;
  const unsigned long long mask = std::strtoull(status.c_str() + at + 7, nullptr, 16);
  return (mask >> (sig - 1)) & 1;
}

class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("COLLBENCH");
    ASSERT_NE(bin, nullptr) << "COLLBENCH must name the collbench binary";
    bin_ = bin;
    const char* mpiexec = std::getenv("MPIEXEC");
    mpiexec_ = mpiexec ? mpiexec : "";
    dir_ = cb::test::fresh_test_dir("collbench-faults");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void need_mpiexec() {
    if (mpiexec_.empty()) GTEST_SKIP() << "no mpiexec in this build";
  }

  // Starts `argv` in its own process group (as a shell job would be) with
  // stdout/stderr to files; `stdout_path` replaces the stdout file.
  pid_t start(const std::vector<std::string>& argv, const std::string& stdout_path = "",
              long fsize_limit = -1) {
    const std::string out = stdout_path.empty() ? (dir_ / "out").string() : stdout_path;
    const std::string err = (dir_ / "err").string();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      // The job meets signals as from a terminal, whatever the test runner
      // inherited: under nohup SIGHUP arrived ignored, and the hangup test's
      // job ran to its end with status 0.
      for (int sig : {SIGHUP, SIGINT, SIGTERM, SIGQUIT}) ::signal(sig, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(o, 1);
      ::dup2(e, 2);
      if (fsize_limit >= 0) {
        // A file-size limit makes writes fail as a full disk does (EFBIG
        // instead of ENOSPC), without needing root to mount a tiny tmpfs.
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit lim{static_cast<rlim_t>(fsize_limit), static_cast<rlim_t>(fsize_limit)};
        ::setrlimit(RLIMIT_FSIZE, &lim);
      }
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    ::setpgid(pid, pid);
    started_ = Clock::now();
    return pid;
  }

  // Waits (at most `limit_s`, then kills the group) and collects the result.
  Result finish(pid_t pid, double limit_s = 60, const std::string& stdout_path = "") {
    Result r;
    int rc = 0;
    const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
    while (::waitpid(pid, &rc, WNOHANG) == 0) {
      if (Clock::now() > deadline) {
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &rc, 0);
        ADD_FAILURE() << "still running after " << limit_s << " s: killed";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    r.status = cb::test::exit_status(rc);
    r.out = slurp(stdout_path.empty() ? dir_ / "out" : fs::path(stdout_path));
    r.err = slurp(dir_ / "err");
    return r;
  }

  std::vector<std::string> cmd(const std::string& args, int ranks = 0) {
    std::vector<std::string> argv;
    if (ranks > 0) argv = {mpiexec_, "-n", std::to_string(ranks)};
    argv.push_back(bin_);
    for (const std::string& w : words(args)) argv.push_back(w);
    return argv;
  }

  Result run(const std::string& args, int ranks = 0, double limit_s = 60) {
    return finish(start(cmd(args, ranks)), limit_s);
  }

  // Waits until `file` holds at least `lines` lines.
  // Generous by default: at load ~20 on 2 cores a 2-rank launch and its
  // first rows can take tens of seconds; an idle machine returns in < 1 s.
  bool wait_for_lines(const fs::path& file, std::size_t lines, double limit_s = 120) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
    while (Clock::now() < deadline) {
      if (fs::exists(file) && lines_of(slurp(file)).size() >= lines) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  std::string p(const char* name) const { return (dir_ / name).string(); }

  std::string bin_, mpiexec_;
  fs::path dir_;
  Clock::time_point started_;

  // Starts `args` on 2 ranks writing r.csv, stops rank 1 with SIGSTOP once
  // r.csv.partial has `lines` lines, and checks that the watchdog ends the
  // run: exit 5 within 10 s, rank 0 naming itself, the configuration (which
  // contains `config`), the step and the stopped peer; the rows kept.
  void expect_watchdog_ends_stopped_peer(const std::string& args, std::size_t lines,
                                         const std::string& config) {
    // Rank 0's own status (the stopped rank 1 never writes one): mpiexec's
    // races Hydra's kill of the stopped rank (harness/USAGE.md, Watchdog).
    const fs::path status_file = dir_ / "rank0.status";
    fs::remove(status_file);
    ::setenv("COLLBENCH_EXIT_FILE", status_file.c_str(), 1);
    const pid_t pid = start(cmd(args + " --csv " + p("r.csv"), 2));
    ::unsetenv("COLLBENCH_EXIT_FILE");
    ASSERT_TRUE(wait_for_lines(dir_ / "r.csv.partial", lines)) << slurp(dir_ / "err");
    const pid_t victim = rank_pid(bin_, 1);
    ASSERT_GT(victim, 0);
    ::kill(victim, SIGSTOP);
    const auto stopped = Clock::now();
    const Result r = finish(pid, 30);
    const double after = std::chrono::duration<double>(Clock::now() - stopped).count();
    EXPECT_EQ(slurp(status_file), "5\n") << r.err;
    // 5 in most trials; 9 (the stopped rank's SIGKILL) or 1 in some.
    EXPECT_NE(r.status, 0) << r.err;
    EXPECT_LT(after, 10) << "took " << after << " s";
    EXPECT_NE(r.err.find("rank 0 (pid"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("watchdog"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(config), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rank 1"), std::string::npos) << r.err;
    EXPECT_GE(lines_of(slurp(dir_ / "r.csv.partial")).size(), lines);
    fs::remove(dir_ / "r.csv.partial");
  }
};

// The one line a fault gives (besides the single-rank launch hint and the
// busy-machine warning, which depends on who else uses the cores).
void expect_one_error_line(const Result& r, const std::string& needle) {
  std::vector<std::string> err;
  for (const std::string& l : lines_of(r.err))
    if (l.rfind("collbench: running as a single rank", 0) != 0 &&
        l.rfind("collbench: warning: the machine is busy", 0) != 0)
      err.push_back(l);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_NE(err[0].find(needle), std::string::npos) << err[0];
}

// A command and the words its one error line must contain.
struct Refusal {
  std::string args, needle;
};

// Each command exits 2 with one line naming the bad value, within 10 s: the
// inputs that once grew without bound or ran for minutes.
template <class Run>
void expect_each_refused_quickly(const std::vector<Refusal>& cases, const Run& run) {
  for (const Refusal& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << r.err;
    expect_one_error_line(r, c.needle);
    EXPECT_LT(r.seconds, 10);
  }
}

// --- item 2: outputs are regular files only, checked before the sweep ------

TEST_F(Faults, OutputPathsThatAreNotRegularFilesAreRefusedAtOnce) {
  fs::create_directories(dir_ / "adir");
  const std::string quick = "run --quiet -n 2 -b 8 -e 8 --algo ring ";
  struct Case {
    std::string args, needle;
  };
  const std::vector<Case> cases = {
      {"--csv /dev/full", "character device"},
      {"--json /dev/null", "character device"},
      {"--csv " + p("adir"), "a directory"},
      {"--csv " + p("missing/r.csv"), "does not create it"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = run(quick + c.args);
    EXPECT_EQ(r.status, 2);
    expect_one_error_line(r, c.needle);
  }
  // An empty name (a shell variable that was not set).
  const pid_t pid = start({bin_, "run", "--quiet", "-n", "2", "-b", "8", "-e", "8", "--csv", ""});
  const Result r = finish(pid);
  EXPECT_EQ(r.status, 2);
  expect_one_error_line(r, "empty file name for --csv");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full must still be a device";
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
  // map and calibrate share the same check.
  const Result m = run("map --coll allreduce --ranks 2..4 -b 8 -e 64 --alpha 1us --beta 1ns "
                       "--gamma 1ns --csv /dev/full");
  EXPECT_EQ(m.status, 2) << m.err;
  EXPECT_NE(m.err.find("character device"), std::string::npos) << m.err;
  const Result cal = run("calibrate --out " + p("nowhere/c.csv"));
  EXPECT_EQ(cal.status, 2) << cal.err;
  expect_one_error_line(cal, "does not create it");
  EXPECT_FALSE(fs::exists(dir_ / "nowhere"));
}

TEST_F(Faults, PlantedSymlinksAreNeverWrittenThrough) {
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "precious\n";
  // The streamed file's name and the final name, each planted as a link
  // (another user's trap in a world-writable directory).
  fs::create_symlink(victim, dir_ / "r.csv.partial");
  fs::create_symlink(victim, dir_ / "s.csv");
  for (const char* name : {"r.csv", "s.csv"}) {
    SCOPED_TRACE(name);
    const Result r = run("run --quiet -n 2 -b 8 -e 64 --algo ring --csv " + p(name));
    EXPECT_EQ(r.status, 2);
    expect_one_error_line(r, "symbolic link");
    EXPECT_EQ(slurp(victim), "precious\n");
  }
  // No temporary was left behind.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST_F(Faults, DashWritesCsvOrJsonToStdout) {
  const Result c = run("run --quiet -n 2 -b 8 -e 64 --algo ring --placement out --csv -");
  ASSERT_EQ(c.status, 0) << c.err;
  const auto lines = lines_of(c.out);
  ASSERT_EQ(lines.size(), 1u + 4) << c.out;  // header + 4 sizes, no table around it
  EXPECT_EQ(lines[0].rfind("transport,collective,", 0), 0u);
  const Result j = run("run --quiet -n 2 -b 8 -e 64 --algo ring --placement out --json -");
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["rows"].size(), 4u);
  EXPECT_EQ(run("run --csv - --json -").status, 2);
}

// --- item 7: full disk, closed stdout --------------------------------------

// A 4 KiB tmpfs fills after a few rows. Needs root (mount); skipped otherwise.
class FullDisk : public Faults {
 protected:
  void SetUp() override {
    Faults::SetUp();
    disk_ = dir_ / "disk";
    fs::create_directories(disk_);
    const std::string mount = "mount -t tmpfs -o size=4k tmpfs " + disk_.string() + " 2>/dev/null";
    if (std::system(mount.c_str()) != 0) GTEST_SKIP() << "cannot mount a tmpfs (needs root)";
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) std::system(("umount " + disk_.string()).c_str());
    Faults::TearDown();
  }
  fs::path disk_;
  bool mounted_ = false;
};

TEST_F(FullDisk, IsOneLineKeepsWholeRowsAndResumeDropsTheCutRow) {
  const std::string args = "run --quiet -n 2 -b 8 -e 1M --algo ring,rhd --placement out";
  const Result r =
      run(args + " --csv " + (disk_ / "r.csv").string() + " --json " + (disk_ / "r.json").string());
  EXPECT_EQ(r.status, 4) << r.err;
  expect_one_error_line(r, "No space left on device");
  EXPECT_NE(r.err.find("kept in"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(disk_ / "r.csv"));
  for (const auto& e : fs::directory_iterator(disk_))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  const std::string partial = slurp(disk_ / "r.csv.partial");
  ASSERT_GT(lines_of(partial).size(), 2u);

  // Resume where there is room: the cut-off row (if any) is dropped, the
  // rest kept, and the sweep completes with every configuration once.
  fs::copy_file(disk_ / "r.csv.partial", dir_ / "r.csv.partial");
  const Result resumed =
      run(args + " --resume --csv " + p("r.csv") + " --json " + p("r.json"));
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  if (partial.back() != '\n') {
    EXPECT_NE(resumed.err.find("cut-off last row was dropped"), std::string::npos) << resumed.err;
  }
  const auto lines = lines_of(slurp(dir_ / "r.csv"));
  EXPECT_EQ(lines.size(), 1u + 2 * 18);
  // Every row as wide as the header (51 columns: CSV.md, the load, known_issue,
  // note, start, late, the mode probe, the node layout, --arrival's and the
  // library's control variables included).
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(std::count(lines[0].begin(), lines[0].end(), ','), 50) << lines[0];
  for (const std::string& l : lines)
    EXPECT_EQ(std::count(l.begin(), l.end(), ','), std::count(lines[0].begin(), lines[0].end(), ','))
        << l;
  EXPECT_FALSE(fs::exists(dir_ / "r.csv.partial"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "r.json"))["rows"].size(), 36u);
}

TEST_F(Faults, ResumeDropsACutOffLastRowAndRemovesTheOldJsonPartial) {
  const std::string args = "run --quiet -n 2 -b 8 -e 64 --algo ring --placement out --csv " +
                           p("r.csv") + " --json " + p("r.json");
  ASSERT_EQ(run(args).status, 0);
  const auto full = lines_of(slurp(dir_ / "r.csv"));
  ASSERT_EQ(full.size(), 5u);
  fs::remove(dir_ / "r.csv");
  {
    std::ofstream partial(dir_ / "r.csv.partial");
    partial << full[0] << "\n" << full[1] << "\n" << full[2].substr(0, 40);  // cut mid-row
    std::ofstream(dir_ / "r.json.partial") << "{\"complete\": false}\n";
  }
  const Result r = run(args + " --resume");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("1 rows kept (a cut-off last row was dropped)"), std::string::npos) << r.err;
  EXPECT_EQ(lines_of(slurp(dir_ / "r.csv")).size(), 5u);
  EXPECT_FALSE(fs::exists(dir_ / "r.csv.partial"));
  EXPECT_FALSE(fs::exists(dir_ / "r.json.partial"));
}

TEST_F(Faults, WriteErrorsOnStdoutExitNonZero) {
  for (const std::string& args : std::vector<std::string>{
           "list", "predict --coll allreduce --ranks 64 -b 8 -e 1M --alpha 1us --beta 0.1ns "
                "--gamma 0.1ns",
        "map --coll allreduce --ranks 2..8 -b 8 -e 1K --alpha 1us --beta 1ns --gamma 1ns --csv " +
            p("m.csv"),
        "run -n 2 -b 8 -e 64 --algo ring"}) {
    SCOPED_TRACE(args);
    const Result r = finish(start(cmd(args), "/dev/full"), 60, "/dev/null");
    EXPECT_EQ(r.status, 4) << r.err;
    EXPECT_NE(r.err.find("standard output"), std::string::npos) << r.err;
  }
}

// --- item 3: numbers are range-checked; signals end a run within a second --

TEST_F(Faults, AbsurdNumbersAreRefusedQuickly) {
  struct Case {
    std::string args, needle;
  };
  const std::vector<Case> cases = {
      {"run --ranks 2000000000..2000000001", "2000000000"},
      {"run -f -2", "-f -2"},
      {"run -f 0", "-f 0"},
      {"run --time-budget inf", "--time-budget inf"},
      {"run --time-budget nan", "--time-budget nan"},
      {"run -n -1", "-n -1"},
      {"run -n 2000000000", "-n 2000000000"},
      {"run -w -5", "-w -5"},
      {"run --timeout -1", "--timeout -1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args, 0, 20);
    EXPECT_EQ(r.status, 2);
    expect_one_error_line(r, c.needle);
    EXPECT_LT(r.seconds, 10);
  }
  // item 5: a tiny --segment is estimated (millions of steps) and refused
  // before any schedule is built; one rank has no steps, so two.
  if (!mpiexec_.empty()) {
    for (const char* algo : {"ring", "tree"}) {
      SCOPED_TRACE(algo);
      const Result r = run(std::string("run -b 16M -e 16M --segment 1 --algo ") + algo, 2, 30);
      EXPECT_EQ(r.status, 2);
      expect_one_error_line(r, "--segment 1 cuts");
      EXPECT_LT(r.seconds, 15);
    }
  }
  // A huge factor is fine: the sweep is just -b (no overflowing size).
  const Result f = run("run --quiet -n 2 -b 8 -e 64 -f 4294967297 --algo ring --placement out "
                       "--csv -");
  EXPECT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(lines_of(f.out).size(), 2u) << f.out;
}

TEST_F(Faults, SigtermEndsALongConfigurationWithinASecond) {
  // One configuration of 100000 fixed samples: minutes without the checks
  // between sample batches.
  const pid_t pid = start(cmd("run --quiet -n 100000 -w 0 -b 4M -e 4M --algo ring --placement "
                              "out --csv " + p("r.csv")));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto sent = Clock::now();
  ::kill(pid, SIGTERM);
  const Result r = finish(pid, 30);
  const double after = std::chrono::duration<double>(Clock::now() - sent).count();
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  // 0.4 s on a quiet machine; the bound is far below the configuration's
  // minutes but leaves room for a loaded one (4.3 s once at load 8 under
  // nice 19): the clean stop waits for the rank to get the CPU for its check.
  EXPECT_LT(after, 10) << "took " << after << " s after SIGTERM";
  EXPECT_NE(r.err.find("interrupted (signal 15)"), std::string::npos) << r.err;
}

// A first signal during a phase without checks (here one simulated
// configuration at 16384 ranks, 5*10^8 message events: a minute or more of
// discrete-event simulation with no check inside) ends the run within about
// a second: nothing looks at the signal there, so the deadline of
// interrupt.hpp does. The bound is generous for a loaded machine, and far
// below the phase (1.1 s at load 10 on 2 cores; before: the whole phase).
TEST_F(Faults, SigtermDuringALongSimulationEndsTheRunWithinASecond) {
  const pid_t pid = start(cmd("run --quiet --transport sim --sim-des --max-events 1e9 --ranks "
                              "16384 --algo ring --coll allreduce -b 1M -e 1M --placement out "
                              "--csv " + p("r.csv")));
  // Far into the simulation (argument checks and the plan take milliseconds).
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  const auto sent = Clock::now();
  ::kill(pid, SIGTERM);
  const Result r = finish(pid, 120);
  const double after = std::chrono::duration<double>(Clock::now() - sent).count();
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  EXPECT_LT(after, 10) << "took " << after << " s after SIGTERM";
  EXPECT_NE(r.err.find("interrupted (signal 15)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

// calibrate: a signal stops both ranks at the next sample batch (before,
// calibrate kept the default action: no "interrupted" line, and mpiexec's
// status was 0 or 143 at random). --out is written at the end only: nothing
// is left behind.
TEST_F(Faults, SigtermDuringCalibrateStopsEveryRankWithTheInterruptedLine) {
  need_mpiexec();
  const std::string rank_cmd = "trap true INT TERM; " + bin_ + " calibrate --out " +
                               p("c.csv") + "; s=$?; echo \"rank status $s\" >&2; exit $s";
  const pid_t pid = start({mpiexec_, "-n", "2", "/bin/sh", "-c", rank_cmd});
  // Signalled once both ranks have their handlers (a signal before that
  // kills by the default action, which is not what is tested), then a
  // second into measuring: calibrate takes 5-25 s.
  const auto begin = Clock::now();
  const auto ready = [&](int rank) {
    const pid_t rp = rank_pid(bin_, rank);
    return rp > 0 && catches(rp, SIGALRM);
  };
  while (!(ready(0) && ready(1)) && Clock::now() - begin < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const auto sent = Clock::now();
  ::kill(-pid, SIGTERM);
  const Result r = finish(pid, 60);
  const double after = std::chrono::duration<double>(Clock::now() - sent).count();
  EXPECT_LT(after, 15) << "took " << after << " s after SIGTERM";
  EXPECT_NE(r.err.find("interrupted (signal 15)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  std::size_t statuses = 0, ranks_143 = 0;
  for (const std::string& l : lines_of(r.err)) {
    if (l.rfind("rank status ", 0) != 0) continue;
    ++statuses;
    ranks_143 += l == "rank status 143";
  }
  EXPECT_EQ(statuses, 2u) << r.err;
  EXPECT_EQ(ranks_143, 2u) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "c.csv"));
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().rfind("c.csv", 0), std::string::npos)
        << "left behind: " << e.path();
}

// --- item 4: Ctrl-C under mpiexec, over MPI and during IPC setup -----------

// Ctrl-C reaches every process of the job (the terminal signals the whole
// foreground group, and mpiexec forwards it once more): the test signals the
// whole process group the same way.
TEST_F(Faults, CtrlCUnderMpiexecEveryRankExits130OverMpiAndDuringIpcSetup) {
  need_mpiexec();
  std::set<pid_t> ranks;  // every rank of every trial: only their names are checked
  struct Trial {
    std::string transport;
    int delay_ms;
  };
  // IPC: every configuration maps fresh segments, so a signal often lands
  // in setup; the delays, counted from the moment the sweep has started
  // (its CSV header is written; mpiexec's own start-up, which a loaded
  // machine stretches, is not counted), spread the signal over setup and runs.
  const std::vector<Trial> trials = {{"mpi", 150},  {"mpi", 600},  {"ipc", 0},
                                     {"ipc", 100},  {"ipc", 250},  {"ipc", 400},
                                     {"ipc", 600}, {"ipc", 900}};
  int launcher_130 = 0, launcher_0 = 0, ranks_all_130 = 0;
  for (const Trial& t : trials) {
    SCOPED_TRACE(t.transport + " after " + std::to_string(t.delay_ms) + " ms");
    // Each rank reports its own exit status (the shell's trap lets it wait
    // for collbench instead of dying by the signal itself). A fixed -n large
    // enough that the sweep outlasts every delay, however idle the machine.
    const std::string rank_cmd = "trap true INT TERM; " + bin_ +
                                 " run --quiet -n 20000 -w 0 --transport " + t.transport +
                                 " --coll all --algo all -b 8 -e 64K -f 4 --csv " + p("r.csv") +
                                 "; s=$?; echo \"rank status $s\" >&2; exit $s";
    const pid_t pid = start({mpiexec_, "-n", "2", "/bin/sh", "-c", rank_cmd});
    EXPECT_TRUE(wait_for_lines(dir_ / "r.csv.partial", 1, 120)) << "the sweep never started";
    for (int rank : {0, 1})
      if (const pid_t rp = rank_pid(bin_, rank)) ranks.insert(rp);
    std::this_thread::sleep_for(std::chrono::milliseconds(t.delay_ms));
    ::kill(-pid, SIGINT);
    const Result r = finish(pid, 30);
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
    std::size_t ranks_130 = 0, statuses = 0;
    for (const std::string& l : lines_of(r.err)) {
      if (l.rfind("rank status ", 0) != 0) continue;
      ++statuses;
      ranks_130 += l == "rank status 130";
    }
    EXPECT_EQ(statuses, 2u) << r.err;
    EXPECT_EQ(ranks_130, 2u) << r.err;
    ranks_all_130 += ranks_130 == 2;
    // MPICH 4.0.2's mpiexec, signalled itself, returns 0 at random whatever
    // its ranks returned (harness/USAGE.md): 130 or 0 are what can hold.
    EXPECT_TRUE(r.status == 130 || r.status == 0) << r.status << "\n" << r.err;
    launcher_130 += r.status == 130;
    launcher_0 += r.status == 0;
    fs::remove(dir_ / "r.csv.partial");
  }
  std::printf("mpiexec returned 130 in %d and 0 in %d of %zu trials; both ranks exited 130 in %d\n",
              launcher_130, launcher_0, trials.size(), ranks_all_130);
  // Every rank has exited (finish() waited for mpiexec): whatever they
  // left is left for good.
  EXPECT_GE(ranks.size(), trials.size()) << "rank pids not found";
  for (const std::string& n : shm_names_of(ranks)) ADD_FAILURE() << "left behind: /dev/shm/" << n;
}

// --- the watchdog: a peer stopped with SIGSTOP -----------------------------

TEST_F(Faults, WatchdogEndsARunWhosePeerIsStopped) {
  need_mpiexec();
  for (const std::string transport : {"mpi", "ipc"}) {
    SCOPED_TRACE(transport);
    expect_watchdog_ends_stopped_peer("run --quiet -n 200 --timeout 2 --transport " + transport +
                                          " --algo ring,rhd -b 8 -e 1M -f 2 --placement out",
                                      3, " on 2 ranks");
  }
}

// MPICH's blocking MPI_Allreduce cannot be bounded: with a watchdog the mpi
// baseline polls the nonblocking form, so a stopped peer ends it too (before,
// rank 0 waited inside MPI_Allreduce for ever under --wait spin).
TEST_F(Faults, WatchdogEndsTheMpiBaselineWhosePeerIsStopped) {
  need_mpiexec();
  expect_watchdog_ends_stopped_peer("run --quiet -n 1000 --timeout 2 --wait spin --algo mpi "
                                    "-b 8 -e 16M -f 2 --placement out",
                                    2, "mpi allreduce mpi");
}

// --- item 8: duplicate names -------------------------------------------------

TEST_F(Faults, DuplicateNamesInListsAreRemoved) {
  const Result r = run("run --quiet -n 2 -b 8 -e 8 --placement out --algo ring,ring,rhd,ring "
                       "-d float,float,fp32 -o sum,sum --coll allreduce,allreduce --csv -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_of(r.out).size(), 1u + 2) << r.out;  // ring and rhd, once each
  const Result m = run("map --coll allreduce --algo ring,ring --ranks 4 -b 1K -e 1K --alpha 1us "
                       "--beta 1ns --gamma 1ns --csv -");
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_EQ(m.out.find("ring,ring"), std::string::npos) << m.out;
}

// --- item 9: leftovers and wording -------------------------------------------

TEST_F(Faults, WordingOfCommonMistakes) {
  fs::create_directories(dir_ / "adir");
  const Result fit = run("fit " + p("adir"));
  EXPECT_EQ(fit.status, 2);
  expect_one_error_line(fit, "is a directory");
  const Result resume = run("run --quiet -n 2 -b 8 -e 8 --resume");
  EXPECT_EQ(resume.status, 2);
  expect_one_error_line(resume, "--resume needs --csv");
  const Result cal = finish(start({bin_, "calibrate", "--out", ""}));
  EXPECT_EQ(cal.status, 2);
  expect_one_error_line(cal, "empty file name for --out");
}

// The probe's last findings (docs/reliability.md, "The probe"): each once
// named the wrong thing or printed a second line before its refusal.
TEST_F(Faults, LastProbeFindingsAreOneLineNamingWhatWasTyped) {
  std::ofstream(dir_ / "number.json") << "42\n";
  fs::create_directories(dir_ / "study");
  std::ofstream(dir_ / "victim") << "keep\n";
  fs::create_symlink(dir_ / "victim", dir_ / "study" / "report.md");
  const Result sweep =
      run("run --quiet --transport sim --ranks 4 -b 8 -e 64 --algo ring,rhd --csv " + p("r.csv"));
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  const std::vector<Refusal> cases = {
      // CLI11's excludes() named -b "--minbytes".
      {"run --quiet -n 2 -w 0 -m 8:64 -b 16 --algo ring", "-m 8:64 with -b 16"},
      // CLI11 said "1 required TEXT missing".
      {"fit " + p("x.csv") + " --calibration", "--calibration needs a value (accepted: "},
      // The tree's shape was refused later, without the file's name.
      {"fit " + p("r.csv") + " --out " + p("fit") + " --mpich-json --mpich-default " +
           p("number.json"),
       "--mpich-default " + p("number.json") + ": not MPICH's default selection tree"},
      // plot.py's "written" line came before the refusal.
      {"report " + p("study"), "symbolic link"},
  };
  expect_each_refused_quickly(cases, [&](const std::string& args) { return run(args, 0, 30); });
  EXPECT_EQ(slurp(dir_ / "victim"), "keep\n");
  EXPECT_FALSE(fs::exists(dir_ / "study" / "plots"));
}

// --- issue 31: a third pass of hostile inputs ---------------------------------

using namespace std::string_literals;

// item 3: a file collbench reads is bounded: not a device, FIFO or directory,
// at most 256 MiB, no line over 1 MiB. /dev/zero once grew every reader
// until bad_alloc.
TEST_F(Faults, InputFilesThatAreNotBoundedTextAreRefusedAtOnce) {
  ASSERT_EQ(::mkfifo(p("fifo").c_str(), 0600), 0);
  {
    // Sparse: 300 MiB of size, no disk.
    std::ofstream big(dir_ / "big.csv");
    big << "alpha_s,beta_s_per_B,gamma_s_per_B\n";
  }
  fs::resize_file(dir_ / "big.csv", std::uintmax_t{300} << 20);
  std::ofstream(dir_ / "long.csv") << std::string(std::size_t{2} << 20, 'x');
  const std::string predict = "predict --coll allreduce --ranks 4 --params ";
  const std::vector<Refusal> cases = {
      {predict + "/dev/zero", "it is a character device"},
      {predict + p("fifo"), "it is a FIFO"},
      {predict + p("big.csv"), "larger than 256 MiB"},
      {predict + p("long.csv"), "line 1 is longer than 1 MiB"},
      {"fit /dev/zero", "it is a character device"},
      {"compare /dev/zero /dev/zero", "it is a character device"},
  };
  expect_each_refused_quickly(cases, [&](const std::string& args) { return run(args, 0, 30); });
}

// item 7: --csv and --json naming one file (however spelled) are refused
// before anything runs; the JSON once replaced the CSV.
TEST_F(Faults, CsvAndJsonNamingTheSameFileAreRefused) {
  fs::create_directories(dir_ / "d");
  fs::create_directory_symlink(dir_ / "d", dir_ / "alias");
  const std::string quick = "run --quiet -n 2 -b 8 -e 8 --algo ring ";
  for (const std::string& json : {p("d/x"), p("d/../d/x"), p("alias/x")}) {
    SCOPED_TRACE(json);
    const Result r = run(quick + "--csv " + p("d/x") + " --json " + json);
    EXPECT_EQ(r.status, 2) << r.err;
    expect_one_error_line(r, "name the same file");
    EXPECT_FALSE(fs::exists(dir_ / "d/x"));
  }
}

// item 7: a second run on an output another run is writing is refused (one
// run's rows were lost while both exited 0); the first is unharmed.
TEST_F(Faults, ConcurrentRunsOnOneOutputAreRefused) {
  const pid_t first = start(cmd("run --quiet -n 100000 -w 0 -b 4M -e 4M --algo ring --placement "
                                "out --csv " + p("r.csv")));
  ASSERT_TRUE(wait_for_lines(dir_ / "r.csv.partial", 1)) << slurp(dir_ / "err");
  const pid_t pid2 = ::fork();
  if (pid2 == 0) {
    const int o = ::open(p("out2").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 2);
    ::execl(bin_.c_str(), bin_.c_str(), "run", "--quiet", "-n", "2", "-b", "8", "-e", "8",
            "--csv", p("r.csv").c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int rc = 0;
  ::waitpid(pid2, &rc, 0);
  EXPECT_EQ(cb::test::exit_status(rc), 2) << slurp(dir_ / "out2");
  EXPECT_NE(slurp(dir_ / "out2").find("is being written by another collbench"), std::string::npos)
      << slurp(dir_ / "out2");
  ::kill(first, SIGTERM);
  const Result r = finish(first, 30);
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "r.csv.partial"));
  EXPECT_FALSE(fs::exists(dir_ / "r.csv.lock")) << "the lock file is removed on exit";
}

// item 7: a link planted at r.json.partial is refused up front, like the
// CSV's; the victim is untouched.
TEST_F(Faults, PlantedSymlinkAtTheJsonPartialIsRefusedUpFront) {
  std::ofstream(dir_ / "victim.txt") << "precious\n";
  fs::create_symlink(dir_ / "victim.txt", dir_ / "r.json.partial");
  const Result r = run("run --quiet -n 2 -b 8 -e 64 --algo ring --json " + p("r.json"));
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, "symbolic link");
  EXPECT_EQ(slurp(dir_ / "victim.txt"), "precious\n");
}

// item 7: COLLBENCH_EXIT_FILE never writes through a link planted at a
// guessable temporary name; the status still arrives.
TEST_F(Faults, ExitFileIsNotWrittenThroughAPlantedLink) {
  std::ofstream(dir_ / "victim.txt") << "precious\n";
  fs::create_symlink(dir_ / "victim.txt", dir_ / "ex.tmp");
  ::setenv("COLLBENCH_EXIT_FILE", p("ex").c_str(), 1);
  const Result r = run("list");
  ::unsetenv("COLLBENCH_EXIT_FILE");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "victim.txt"), "precious\n");
  EXPECT_EQ(slurp(dir_ / "ex"), "0\n");
}

// item 7: --resume drops repeated header lines and rows without a valid
// time (fit rejected the file they made), and says so.
TEST_F(Faults, ResumeDropsRepeatedHeadersAndNanRows) {
  const std::string args = "run --quiet -n 2 -b 8 -e 64 --algo ring --placement out --csv " +
                           p("r.csv");
  ASSERT_EQ(run(args).status, 0);
  const auto full = lines_of(slurp(dir_ / "r.csv"));
  ASSERT_EQ(full.size(), 5u);
  fs::remove(dir_ / "r.csv");
  // The 3rd row's median becomes "nan".
  const auto header = cb::test::cells_of(full[0]);
  const auto median = std::find(header.begin(), header.end(), "time_median_us") - header.begin();
  auto cells = cb::test::cells_of(full[3]);
  cells[static_cast<std::size_t>(median)] = "nan";
  std::string nan_row;
  for (std::size_t i = 0; i < cells.size(); ++i) nan_row += (i ? "," : "") + cells[i];
  std::ofstream(dir_ / "r.csv.partial")
      << full[0] << "\n" << full[1] << "\n" << full[0] << "\n" << full[2] << "\n" << nan_row
      << "\n";
  const Result r = run(args + " --resume");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("2 rows kept (dropped: 1 repeated header line, 1 row without a valid "
                       "time)"),
            std::string::npos)
      << r.err;
  const auto lines = lines_of(slurp(dir_ / "r.csv"));
  EXPECT_EQ(lines.size(), 5u);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), full[0]), 1);
  const Result fit = run("fit " + p("r.csv") + " --out " + p("fit"));
  EXPECT_NE(fit.err.find("time_median_us"), 0u) << fit.err;
  EXPECT_EQ(fit.err.find("not a number"), std::string::npos) << fit.err;
}

// item 7: an output that exists keeps its permissions when rewritten.
TEST_F(Faults, RewrittenOutputKeepsItsMode) {
  std::ofstream(dir_ / "r.csv") << "old\n";
  fs::permissions(dir_ / "r.csv", fs::perms::owner_read | fs::perms::owner_write);
  const Result r = run("run --quiet -n 2 -b 8 -e 8 --algo ring --csv " + p("r.csv"));
  ASSERT_EQ(r.status, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(p("r.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// item 5: a denormal median (1e-320 us is 0 in seconds) is one line and exit
// 2, not an internal check failure (exit 3).
TEST_F(Faults, FitRefusesDenormalTimesWithOneLine) {
  ASSERT_EQ(run("run --quiet -n 2 -b 8 -e 64 --algo ring --placement out --csv " + p("r.csv"))
                .status,
            0);
  auto lines = lines_of(slurp(dir_ / "r.csv"));
  const auto header = cb::test::cells_of(lines[0]);
  const auto median = static_cast<std::size_t>(
      std::find(header.begin(), header.end(), "time_median_us") - header.begin());
  std::ofstream out(dir_ / "tiny.csv");
  out << lines[0] << "\n";
  for (std::size_t l = 1; l < lines.size(); ++l) {
    auto cells = cb::test::cells_of(lines[l]);
    cells[median] = "1e-320";
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << cells[i];
    out << "\n";
  }
  out.close();
  const Result r = run("fit " + p("tiny.csv") + " --out " + p("fit"));
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, "time_median_us is 1e-320");
}

// item 4: configurations whose bookkeeping cannot fit are refused before
// any work (they reached gigabytes or bad_alloc), and so are absurd ranks.
TEST_F(Faults, HugeSimulationsAndPredictionsAreRefusedBeforeAnyWork) {
  const std::vector<Refusal> cases = {
      {"map --coll allreduce --ranks 2..4096 --segment 1 -b 1G -e 1G --alpha 1us --beta 1ns "
       "--gamma 1ns --csv " + p("m.csv"), "--segment 1"},
      {"map --coll allreduce --algo tree --ranks 4 --segment 1 -b 1G -e 1G --alpha 1us --beta "
       "1ns --gamma 1ns --csv " + p("m.csv"), "--segment 1"},
      {"run --transport sim --algo tree --ranks 16 --segment 1 -b 1G -e 1G", "--segment 1"},
      {"predict --coll allreduce --ranks 2147483647 --alpha 1us --beta 1ns --gamma 1ns",
       "--ranks 2147483647"},
      {"run --transport sim --sim-window -1", "--sim-window -1"},
      {"run -i 4 -f 4", "more than 1048576 sizes"},
  };
  expect_each_refused_quickly(cases, [&](const std::string& args) { return run(args, 0, 30); });
}

// item 12: flags that would be silently ignored, malformed lists, misplaced
// --resume, writes to a full stdout.
TEST_F(Faults, MinorCliMistakesAreOneLine) {
  struct Case {
    std::string args, needle;
  };
  const std::vector<Case> cases = {
      {"run --transport mpi --mem host", "--mem is a flag of --transport ipc"},
      {"run --transport mpi --alpha 3us", "--alpha is a flag of --transport sim"},
      {"run --ranks 1,,1", "--ranks '1,,1'"},
      {"map --resume --ranks 2..4 --alpha 1us --beta 1ns --gamma 1ns", "--resume needs --csv"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args, 0, 30);
    EXPECT_EQ(r.status, 2) << r.err;
    expect_one_error_line(r, c.needle);
  }
  for (const std::string& args : {"--version"s, "run --quiet -n 2 -b 8 -e 8 --csv -"s}) {
    SCOPED_TRACE(args);
    const Result r = finish(start(cmd(args), "/dev/full"), 60, "/dev/null");
    EXPECT_EQ(r.status, 4) << r.err;
    expect_one_error_line(r, "standard output");
  }
}

// item 12: sim and map say their info line only once the outputs are open:
// a refusal is the only line.
TEST_F(Faults, SimAndMapSayNothingBeforeTheirRefusal) {
  for (const std::string& args :
       {"run --transport sim --ranks 4 -b 8 -e 8 --csv /dev/full"s,
        "map --ranks 2..4 -b 8 -e 8 --alpha 1us --beta 1ns --gamma 1ns --csv /dev/full"s}) {
    SCOPED_TRACE(args);
    const Result r = run(args);
    EXPECT_EQ(r.status, 2) << r.err;
    expect_one_error_line(r, "character device");
  }
}

// item 12: a calibration cut mid-number, or with nan, inf or a negative
// time, is refused by predict and fit, not read as another value.
TEST_F(Faults, CalibrationWithBadTimesIsRefused) {
  const char* source = std::getenv("CALIBRATION_FIXTURE");
  if (!source) GTEST_SKIP() << "CALIBRATION_FIXTURE is set by meson test";
  const std::string good = slurp(source);
  ASSERT_FALSE(good.empty());
  const auto lines = lines_of(good);
  ASSERT_EQ(lines.size(), 2u);
  const auto header = cb::test::cells_of(lines[0]);
  const auto column = static_cast<std::size_t>(
      std::find(header.begin(), header.end(), "pingpong_s") - header.begin());
  ASSERT_LT(column, header.size());
  const auto with = [&](const std::string& value) {
    auto cells = cb::test::cells_of(lines[1]);
    cells[column] = value;
    std::string row;
    for (std::size_t i = 0; i < cells.size(); ++i) row += (i ? "," : "") + cells[i];
    return lines[0] + "\n" + row + "\n";
  };
  struct Case {
    std::string text, needle;
  };
  const std::vector<Case> cases = {
      // "...e-10\n" becomes "...e-1": a valid number, only the missing newline tells.
      {good.substr(0, good.size() - 2), "cut short"},
      {with("nan"), "pingpong_s"},
      {with("inf"), "pingpong_s"},
      {with("1e-6;-1"), "pingpong_s holds -1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(c.text.size() - 40));
    std::ofstream(dir_ / "cal.csv") << c.text;
    const Result r = run("predict --coll allreduce --ranks 4 --params " + p("cal.csv"));
    EXPECT_EQ(r.status, 2) << r.err;
    expect_one_error_line(r, c.needle);
  }
}

// item 12: --resume on a big file without a newline says what it is.
TEST_F(Faults, ResumeOnAFileWithoutAnyNewlineSaysWhatItIs) {
  std::ofstream(dir_ / "r.csv.partial") << std::string(100000, 'x');
  const Result r = run("run --quiet -n 2 -b 8 -e 8 --resume --csv " + p("r.csv"));
  EXPECT_EQ(r.status, 2) << r.err;
  expect_one_error_line(r, "not one complete line");
}


// item 11: a closed terminal (SIGHUP to the launch's process group) makes
// mpiexec's proxy SIGKILL the ranks at once; the JSON's rows so far are in
// r.json.partial all the same (before: only the CSV kept them).
TEST_F(Faults, HangupUnderMpiexecKeepsTheJsonRows) {
  need_mpiexec();
  // Every algorithm: ring and rhd alone (about 3 s on an idle machine) could
  // end before r.json.partial was first seen, and the hangup then came late.
  const pid_t pid = start(cmd("run --quiet -n 20000 -w 0 --algo all -b 8 -e 64K --csv " +
                                  p("r.csv") + " --json " + p("r.json"),
                              2));
  ASSERT_TRUE(wait_for_lines(dir_ / "r.csv.partial", 3)) << slurp(dir_ / "err");
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (!fs::exists(dir_ / "r.json.partial") && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(-pid, SIGHUP);
  const Result r = finish(pid, 60);
  EXPECT_NE(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(slurp(dir_ / "r.json.partial"), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "r.json.partial is not whole JSON";
  EXPECT_FALSE(doc["complete"].get<bool>());
  EXPECT_GE(doc["rows"].size(), 1u);
  EXPECT_GE(lines_of(slurp(dir_ / "r.csv.partial")).size(), doc["rows"].size() + 1);
}

// item 11: SIGTERM sent to rank 1 alone is what every rank reports (before:
// "signal 2", rank 0's default).
TEST_F(Faults, SignalToOneRankIsTheSignalReported) {
  need_mpiexec();
  const pid_t pid = start(cmd("run --quiet -n 20000 -w 0 --algo ring,rhd -b 8 -e 64K --csv " +
                                  p("r.csv"),
                              2));
  ASSERT_TRUE(wait_for_lines(dir_ / "r.csv.partial", 2)) << slurp(dir_ / "err");
  const pid_t victim = rank_pid(bin_, 1);
  ASSERT_GT(victim, 0);
  ::kill(victim, SIGTERM);
  const Result r = finish(pid, 60);
  EXPECT_NE(r.err.find("interrupted (signal 15)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("signal 2"), std::string::npos) << r.err;
}

// item 6: calibrate has --timeout: a peer stopped mid-calibration ends it
// with the watchdog's line and status 5 (before: no end after 90 s).
TEST_F(Faults, CalibrateTimeoutEndsAStoppedPeer) {
  need_mpiexec();
  const fs::path status_file = dir_ / "rank0.status";
  ::setenv("COLLBENCH_EXIT_FILE", status_file.c_str(), 1);
  // To 16 MiB: on an idle machine in its fast mode calibrate -e 1M ended
  // within the 1.5 s the test waits before stopping the peer.
  const pid_t pid = start(cmd("calibrate --timeout 2 -e 16M --out " + p("c.csv"), 2));
  ::unsetenv("COLLBENCH_EXIT_FILE");
  const auto begin = Clock::now();
  pid_t victim = 0;
  while (Clock::now() - begin < std::chrono::seconds(120)) {
    victim = rank_pid(bin_, 1);
    if (victim > 0 && catches(victim, SIGALRM)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(victim, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(victim, SIGSTOP);
  const Result r = finish(pid, 60);
  ::kill(victim, SIGCONT);
  EXPECT_EQ(slurp(status_file), "5\n") << r.err;
  EXPECT_NE(r.err.find("watchdog"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "c.csv"));
}

// item 6: a rank stopped during start-up (inside MPI_Init or the first
// collectives, which the wait loops' watchdog never sees) ends the run with
// the watchdog's line within --timeout, over MPI and IPC (before: > 45 s,
// no word).
TEST_F(Faults, RankStoppedDuringStartUpEndsWithinTheTimeout) {
  need_mpiexec();
  for (const std::string transport : {"mpi", "ipc"}) {
    SCOPED_TRACE(transport);
    const pid_t pid = start(cmd("run --quiet --timeout 5 -n 2 -b 8 -e 8 --algo ring --transport " +
                                    transport + " --csv " + p("r.csv"),
                                2));
    pid_t victim = 0;
    const auto begin = Clock::now();
    while (victim == 0 && Clock::now() - begin < std::chrono::seconds(60)) {
      victim = rank_pid(bin_, 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_GT(victim, 0);
    ::kill(victim, SIGSTOP);
    const Result r = finish(pid, 60);
    ::kill(victim, SIGCONT);
    EXPECT_NE(r.err.find("watchdog"), std::string::npos) << r.err;
    EXPECT_NE(r.status, 0) << r.err;
    fs::remove(dir_ / "r.csv.partial");
    fs::remove(dir_ / "r.csv");
  }
}

// item 11: a sweep of a million sizes (the most accepted) obeys SIGTERM
// while it is planned (before: 10 s for -i 4's 16 Mi sizes, planned
// without a check; those are now refused at once).
TEST_F(Faults, SigtermWhileAHugeSweepIsPlannedEndsItQuickly) {
  const pid_t pid = start(cmd("run --quiet -b 64 -e 64M -i 64 --algo ring --placement out --csv " +
                              p("r.csv")));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto sent = Clock::now();
  ::kill(pid, SIGTERM);
  const Result r = finish(pid, 60);
  const double after = std::chrono::duration<double>(Clock::now() - sent).count();
  EXPECT_LT(after, 10) << "took " << after << " s after SIGTERM";
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  EXPECT_NE(r.err.find("interrupted (signal 15)"), std::string::npos) << r.err;
}

// --- the hostile probe (tests/probe/probe.py): its command-line findings ----

// Values CLI11 once took in silence (an empty value as the default, -1 as
// 2^64 - 1 for a seed, empty list items skipped), model parameters so large
// every time overflowed, and flags ignored without their partner: each is one
// line naming the value and what is accepted, exit 2.
TEST_F(Faults, ProbedCommandLineValuesAreRefusedWithOneLine) {
  const std::string sim = "run --quiet --transport sim --ranks 4 -b 8 -e 64 --algo ring ";
  ASSERT_EQ(run("run --quiet --transport sim --ranks 2,4 --algo ring,rhd -b 8 -e 1K --csv " +
                p("r.csv"))
                .status,
            0);
  const std::vector<Refusal> cases = {
      {"run --quiet -b 8 -e 8 -n ''", "the value is empty (accepted: a whole number"},
      {"run --quiet -b 8 -e 8 --timeout ''", "the value is empty (accepted: a number"},
      {"run --quiet -b 8 -e 8 --seed -1", "'-1' is not a whole number from 0"},
      {"run --quiet -b 8 -e 8 -n 1e300", "'1e300' is not a whole number"},
      {"run --quiet -b 8 -e 8 --coll allreduce,", "bad --coll 'allreduce,': an empty item"},
      {"run --quiet -b 8 -e 8 --algo ring,,rhd", "bad --algo 'ring,,rhd': an empty item"},
      {"run --quiet -b 8 -e 8 -d float,,double", "bad -d 'float,,double': an empty item"},
      {sim + "--alpha 1e300", "bad --alpha '1e300': above 3600 seconds"},
      {sim + "--bandwidth 1e300", "bad --bandwidth '1e300': above 1e+15 bytes per second"},
      {sim + "--params-transport mpi", "--params-transport mpi chooses a row of --params"},
      {sim + "--params " + (std::getenv("CALIBRATION_FIXTURE") ? std::getenv("CALIBRATION_FIXTURE")
                                                              : "/nonexistent") +
           " --params-transport mpi",
       std::getenv("CALIBRATION_FIXTURE") ? "holds transport ipc-host only" : "cannot read"},
      {"recommend " + p("r.csv") + " --predict-ranks 8", "--predict-ranks 8 needs a model"},
      {"compare --threshold 1e300 " + p("r.csv") + " " + p("r.csv"), "bad --threshold '1e300'"},
      {"calibrate -e 1K --out " + p("c.csv"), "-e/--maxbytes '1K' is outside the accepted range 4K..64M"},
      {"run --transport sim --ranks 2 -m 8:4", "bad -m '8:4'"},
  };
  expect_each_refused_quickly(cases, [&](const std::string& args) {
    // words() cannot carry an empty argument: '' stands for one here.
    std::vector<std::string> argv = cmd(args);
    for (std::string& a : argv)
      if (a == "''") a.clear();
    return finish(start(argv), 30);
  });
}

// Outputs the probe found written through a planted link, written over the
// input they were computed from, or reported twice.
TEST_F(Faults, ProbedOutputsAreNeverWrittenThroughOrOverAnInput) {
  std::ofstream(dir_ / "victim.txt") << "precious\n";
  fs::create_symlink(dir_ / "victim.txt", dir_ / "log.0");
  const Result link = run("run --quiet -n 2 -w 0 -b 8 -e 8 --algo ring --placement out "
                          "--arrival one-late:1us --arrival-log " + p("log"));
  EXPECT_EQ(link.status, 2) << link.err;
  expect_one_error_line(link, "log.0 is a symbolic link");
  EXPECT_EQ(slurp(dir_ / "victim.txt"), "precious\n");

  if (const char* cal = std::getenv("CALIBRATION_FIXTURE")) {
    fs::copy_file(cal, dir_ / "cal.csv");
    const std::string before = slurp(dir_ / "cal.csv");
    const Result predict = run("predict --coll allreduce --ranks 4 -b 8 -e 64 --params " +
                               p("cal.csv") + " --csv " + p("cal.csv"));
    EXPECT_EQ(predict.status, 2) << predict.err;
    expect_one_error_line(predict, "would replace the model read from it");
    EXPECT_EQ(slurp(dir_ / "cal.csv"), before);
  }

  fs::create_directories(dir_ / "d");
  ASSERT_EQ(run("run --quiet --transport sim --ranks 2,4 --algo ring,rhd -b 8 -e 1K --csv " +
                p("d/fit.csv"))
                .status,
            0);
  const std::string results = slurp(dir_ / "d/fit.csv");
  const Result fit = run("fit " + p("d/fit.csv") + " --out " + p("d"));
  EXPECT_EQ(fit.status, 2) << fit.err;
  expect_one_error_line(fit, "would replace the input");
  EXPECT_EQ(slurp(dir_ / "d/fit.csv"), results);

  const Result json = finish(start(cmd("run --quiet -n 2 -w 0 -b 8 -e 8 --algo ring --json -"),
                                   "/dev/full"),
                             60, "/dev/null");
  EXPECT_EQ(json.status, 4) << json.err;
  expect_one_error_line(json, "standard output");
}

}  // namespace
