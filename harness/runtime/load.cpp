#include "harness/runtime/load.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace cb {

std::optional<MachineLoad> read_machine_load() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (!f) return std::nullopt;
  MachineLoad l;
  int total = 0;
  const int got = std::fscanf(f, "%lf %lf %lf %d/%d", &l.avg_1m, &l.avg_5m, &l.avg_15m,
                              &l.runnable, &total);
  std::fclose(f);
  if (got != 5) return std::nullopt;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) l.cores = std::max(1, CPU_COUNT(&set));
  l.online_cores = std::max({1L, ::sysconf(_SC_NPROCESSORS_ONLN), static_cast<long>(l.cores)});
  return l;
}

std::optional<MachineLoad> recent_machine_load(double max_age_s) {
  using clock = std::chrono::steady_clock;
  static std::optional<clock::time_point> read_at;
  static std::optional<MachineLoad> last;
  const clock::time_point now = clock::now();
  if (!read_at || std::chrono::duration<double>(now - *read_at).count() >= max_age_s) {
    last = read_machine_load();
    read_at = now;
  }
  return last;
}

bool is_loaded(const MachineLoad& load, int own_ranks) {
  own_ranks = std::max(own_ranks, 1);
  const int others = std::max(0, load.runnable - own_ranks);
  const int idle_cores = std::max(0, load.online_cores - own_ranks);
  return others > idle_cores || load.avg_1m > load.online_cores;
}

std::string describe(const MachineLoad& l) {
  return fmt::format("load average {:.2f} {:.2f} {:.2f}, {} runnable threads, {} cores online, "
                     "{} usable by this rank",
                     l.avg_1m, l.avg_5m, l.avg_15m, l.runnable, l.online_cores, l.cores);
}

std::string load_warning(const std::optional<MachineLoad>& load, int own_ranks) {
  if (!load || !is_loaded(*load, own_ranks)) return {};
  return fmt::format(
      "collbench: warning: the machine is busy ({}; this launch has {} rank(s) here): other work "
      "competes for the cores, so times may be inflated and noisy (load_avg_1m and "
      "procs_running are recorded with every row)",
      describe(*load), std::max(own_ranks, 1));
}

}  // namespace cb
