// Shared-memory segment hygiene: a name is removed on every exit path
// (destructor, exit(), an uncaught exception, SIGTERM, SIGINT), and a crashed
// run's leftovers are recognised by their dead owner and swept, while a live
// process's segments are left alone. Each exit path runs in a forked child
// and is checked from /dev/shm afterwards.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <algorithm>

#include "transports/ipc/shm/segment.hpp"

namespace cb::ipc {
namespace {

bool exists_in_dev_shm(const std::string& name) { return ::access(("/dev/shm/" + name).c_str(), F_OK) == 0; }

// Forks a child that creates a segment, reports its name through a pipe and
// then runs `then`. Returns the name and the child's wait status.
template <class Then>
std::pair<std::string, int> child_with_segment(Then then) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ShmSegment seg = ShmSegment::create(4096);
    seg.data()[0] = std::byte{42};
    const std::string name = seg.name() + "\n";
    if (::write(fds[1], name.data(), name.size()) != static_cast<ssize_t>(name.size())) ::_exit(99);
    ::close(fds[1]);
    then(seg);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string name;
  char c;
  while (::read(fds[0], &c, 1) == 1 && c != '\n') name += c;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {name, status};
}

TEST(Segment, CreateMapsZeroedMemoryAndDestructorRemovesTheName) {
  std::string name;
  {
    ShmSegment seg = ShmSegment::create(10000);
    name = seg.name();
    EXPECT_EQ(name.rfind(kSegmentPrefix, 0), 0u);
    EXPECT_TRUE(exists_in_dev_shm(name));
    EXPECT_EQ(seg.data()[9999], std::byte{0});
    ShmSegment peer = ShmSegment::open_read_only(name, 10000);
    seg.data()[5] = std::byte{7};
    EXPECT_EQ(peer.data()[5], std::byte{7});  // same memory
  }
  EXPECT_FALSE(exists_in_dev_shm(name));
}

TEST(Segment, UnlinkRemovesTheNameButKeepsTheMapping) {
  ShmSegment seg = ShmSegment::create(4096);
  ShmSegment peer = ShmSegment::open_read_only(seg.name(), 4096);
  seg.unlink();
  EXPECT_FALSE(exists_in_dev_shm(seg.name()));
  seg.data()[1] = std::byte{3};
  EXPECT_EQ(peer.data()[1], std::byte{3});
  seg.unlink();  // idempotent
}

TEST(Segment, NamesAreUniqueAndNeverReused) {
  ShmSegment a = ShmSegment::create(64);
  ShmSegment b = ShmSegment::create(64);
  EXPECT_NE(a.name(), b.name());
}

// The last field is random (not a serial), so another user cannot create a
// run's names in advance: consecutive names share nothing predictable.
TEST(Segment, NamesEndInARandomNumber) {
  std::vector<unsigned long long> last;
  std::vector<ShmSegment> segs;
  for (int i = 0; i < 8; ++i) {
    segs.push_back(ShmSegment::create(64));
    const std::string& name = segs.back().name();
    SegmentOwner owner;
    ASSERT_TRUE(parse_segment_name(name, owner)) << name;
    EXPECT_EQ(owner.pid, ::getpid());
    last.push_back(std::stoull(name.substr(name.rfind('-') + 1)));
  }
  int small = 0, consecutive = 0;
  for (std::size_t i = 0; i < last.size(); ++i) {
    small += last[i] < (1ull << 32);
    if (i > 0) consecutive += last[i] == last[i - 1] + 1;
  }
  EXPECT_LT(small, 3);  // a serial would be 0, 1, 2, ...
  EXPECT_EQ(consecutive, 0);
}

TEST(Segment, ErrorExitRemovesTheName) {
  auto [name, status] = child_with_segment([](ShmSegment&) { std::exit(3); });
  ASSERT_FALSE(name.empty());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  EXPECT_FALSE(exists_in_dev_shm(name));
}

TEST(Segment, UncaughtExceptionRemovesTheName) {
  auto [name, status] = child_with_segment([](ShmSegment&) {
    // An exception escaping a thread's function: std::terminate -> abort().
    std::thread([] { throw std::runtime_error("boom"); }).join();
  });
  ASSERT_FALSE(name.empty());
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  EXPECT_FALSE(exists_in_dev_shm(name));
}

TEST(Segment, SigtermAndSigintRemoveTheNameAndStillKillTheProcess) {
  for (int sig : {SIGTERM, SIGINT}) {
    auto [name, status] = child_with_segment([sig](ShmSegment&) {
      ::raise(sig);
      ::_exit(0);  // not reached: the handler re-raises with the default action
    });
    ASSERT_FALSE(name.empty());
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig;
    EXPECT_FALSE(exists_in_dev_shm(name)) << "signal " << sig;
  }
}

TEST(Segment, CrashedRunsLeftoversAreSweptAndLiveOnesKept) {
  // _exit skips every cleanup path, as SIGKILL would.
  auto [stale, status] = child_with_segment([](ShmSegment&) { ::_exit(0); });
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_TRUE(exists_in_dev_shm(stale));
  ShmSegment live = ShmSegment::create(64);

  const auto removed = sweep_stale_segments();
  EXPECT_NE(std::find(removed.begin(), removed.end(), stale), removed.end());
  EXPECT_FALSE(exists_in_dev_shm(stale));
  EXPECT_TRUE(exists_in_dev_shm(live.name()));
}

TEST(Segment, ReusedPidIsNotMistakenForTheOwner) {
  // This process's pid with another start time: the owner died and the pid
  // was reused, so the segment is stale.
  const std::string fake = std::string(kSegmentPrefix) + std::to_string(::getpid()) + "-1-0";
  { std::ofstream("/dev/shm/" + fake) << "x"; }
  SegmentOwner owner;
  ASSERT_TRUE(parse_segment_name(fake, owner));
  EXPECT_FALSE(owner_alive(owner));
  sweep_stale_segments();
  EXPECT_FALSE(exists_in_dev_shm(fake));
}

// Stale-looking names of another user (here: of a uid that is not the
// sweeper's) are never removed, nor are links; the sweeper's own are, and
// many of them make one line on stderr, not one each.
TEST(Segment, SweepRemovesOnlyTheCallersOwnFilesAndSaysSoInOneLine) {
  char tmpl[] = "/tmp/collbench-sweep-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  // pid 1 with start time 1: never a live owner (init starts later than tick 1).
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) {
    names.push_back(std::string(kSegmentPrefix) + "999999-1-" + std::to_string(i));
    std::ofstream(dir + "/" + names.back()) << "x";
  }
  const std::string link = std::string(kSegmentPrefix) + "999999-1-999";
  ASSERT_EQ(::symlink("/etc/hostname", (dir + "/" + link).c_str()), 0);
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(sweep_stale_segments(dir, ::geteuid() + 1).empty());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  for (const std::string& n : names) EXPECT_EQ(::access((dir + "/" + n).c_str(), F_OK), 0) << n;

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(sweep_stale_segments(dir, ::geteuid()).size(), names.size());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("removed 50 stale shared-memory segments"), std::string::npos) << err;
  for (const std::string& n : names) EXPECT_NE(::access((dir + "/" + n).c_str(), F_OK), 0) << n;
  struct stat st {};
  EXPECT_EQ(::lstat((dir + "/" + link).c_str(), &st), 0) << "the link was removed";
  ::unlink((dir + "/" + link).c_str());
  ::rmdir(dir.c_str());
}

TEST(Segment, ForeignNamesAreNotOurs) {
  SegmentOwner owner;
  EXPECT_FALSE(parse_segment_name("collbench-", owner));
  EXPECT_FALSE(parse_segment_name("collbench-12-x-3", owner));
  EXPECT_FALSE(parse_segment_name("collbench-12-34-5-extra", owner));
  EXPECT_FALSE(parse_segment_name("mpich_shm_12", owner));
  EXPECT_TRUE(parse_segment_name("collbench-12-34-5", owner));
  EXPECT_EQ(owner.pid, 12);
  EXPECT_EQ(owner.start_ticks, 34u);
}

}  // namespace
}  // namespace cb::ipc
