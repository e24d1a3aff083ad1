// The busy-machine warning on a pinned rank (suite 'faults'): the load
// average is the node's, so it is compared with the node's online cores. A
// rank pinned to one core of two idle ones once read its affinity mask as
// the core count and called a load of 1.8 "busy".
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <optional>

#include "harness/runtime/load.hpp"

namespace {

TEST(LoadWarning, APinnedRankComparesTheLoadWithTheNodesOnlineCores) {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 2) GTEST_SKIP() << "needs 2 online cores, this machine has " << online;
  cpu_set_t old_mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof old_mask, &old_mask), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  std::optional<cb::MachineLoad> load = cb::read_machine_load();
  sched_setaffinity(0, sizeof old_mask, &old_mask);
  if (!load) GTEST_SKIP() << "no /proc/loadavg";
  // Two pinned ranks alone on two cores: each runnable, the load near 2.
  load->avg_1m = 1.8;
  load->runnable = 2;
  EXPECT_FALSE(cb::is_loaded(*load, 2)) << cb::describe(*load);
  EXPECT_EQ(cb::load_warning(load, 2), "");
  // Above the online cores it is busy, pinned or not.
  load->avg_1m = static_cast<double>(online) + 0.5;
  EXPECT_TRUE(cb::is_loaded(*load, 2)) << cb::describe(*load);
}

}  // namespace
