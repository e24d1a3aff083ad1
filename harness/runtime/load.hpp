// How busy the machine is while collbench measures: the kernel's load average
// and runnable-thread count (/proc/loadavg), recorded in every output and
// turned into a warning when other work competes with the ranks for cores.
// On a loaded machine spinning ranks take turns by scheduler timeslices and an
// 8 B all-reduce "takes" milliseconds; the numbers must say so.
#pragma once

#include <optional>
#include <string>

namespace cb {

struct MachineLoad {
  double avg_1m = 0, avg_5m = 0, avg_15m = 0;  // /proc/loadavg
  int runnable = 0;  // threads runnable right now, this process included
  int cores = 1;     // usable cores of this process (sched_getaffinity)
  // Cores online on the node (sysconf): what the load average and the
  // runnable count are spread over. A pinned rank may use 1 core of 2 idle
  // ones; compared with its mask a load of 1.8 read as "busy".
  int online_cores = 1;
};

// Reads /proc/loadavg; nullopt where it does not exist (non-Linux).
std::optional<MachineLoad> read_machine_load();

// read_machine_load(), read again only once `max_age_s` seconds (steady
// clock) have passed since the last read: a simulated sweep emits thousands
// of rows a second, and a /proc read per row cost more than the row. The
// 1-minute average changes little in that time. Not thread-safe.
std::optional<MachineLoad> recent_machine_load(double max_age_s = 0.5);

// Whether work other than our `own_ranks` ranks on this node competes for the
// cores: more runnable threads than our ranks and the idle cores can hold, or
// a 1-minute load average above the node's online cores (not this rank's
// affinity mask: the load is the node's).
bool is_loaded(const MachineLoad& load, int own_ranks);

// "load average 12.3 5.1 2.0, 9 runnable threads, 2 usable cores".
std::string describe(const MachineLoad& load);

// The one-line stderr warning for a loaded machine (empty when not loaded).
std::string load_warning(const std::optional<MachineLoad>& load, int own_ranks);

}  // namespace cb
