// `collbench run`'s options as make_plan (plan.hpp) takes them. The CLI
// (harness/cli/cmd_run.cpp) parses what needs no plan into typed values (the
// sizes, --wait, --start); the lists that resolve against the algorithm
// registry and the transport (--coll, --algo, -d, -o, --ranks, ...) come as
// typed, and make_plan resolves them, naming the flag on bad input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "transports/contract/measure.hpp"
#include "transports/contract/transport.hpp"

namespace cb {

// The message sizes of -b -e -f -i (or OSU's -m), parsed.
struct SizeSweep {
  std::vector<std::size_t> bytes;  // the sizes S, BYTES, in sweep order
  // -b and -e as typed (messages and the JSON configuration), -f, and -i as typed.
  std::string min_text = "8", max_text = "64M";
  std::size_t factor = 2;
  std::string increment_text = "0";
};

struct RunOptions {
  std::string transport = "mpi";
  std::string colls = "allreduce";  // list or "all"
  std::string algos = "all";        // list or "all" (registry + the transport's baselines)
  SizeSweep sizes;                  // -b -e -f -i
  int iterations = 0;               // -n (0 = sample by --time-budget)
  int warmup = 1;                   // -w
  int check = 1;                    // -c
  double time_budget_s = 0.25;      // --time-budget (seconds per configuration)
  std::string datatypes = "float";  // -d list or "all"
  std::string ops = "sum";          // -o list or "all"
  std::string placement = "both";   // in | out | both
  std::string ranks;                // --ranks (empty = world size)
  WaitPolicy wait = WaitPolicy::automatic;    // --wait
  StartMethod start = StartMethod::barrier;   // --start (timing.hpp)
  std::string mode_probe = "on";    // --mode-probe: on | off (mode_probe.hpp)
  std::string order = "interleaved";  // --order: interleaved | size | algorithm (plan.hpp)
  std::string segment = "0";        // --segment (bytes; 0 = algorithm default)
  // --ranks-per-node K (the sim transport's flag, read by every transport):
  // K consecutive ranks per node; 0 = as the runtime places them.
  int ranks_per_node = 0;
  // The runtime's layout, filled by `run` (NodeLayoutInfo::ranks_per_node;
  // 0 = one node, -1 = irregular) with its description for messages.
  int runtime_ranks_per_node = 0;
  std::string runtime_layout;
  std::string arrival = "none";     // --arrival PATTERN (transports/contract/arrival.hpp)
  std::uint64_t seed = 1;           // --seed: draws of --arrival uniform
  std::string arrival_log;          // --arrival-log PREFIX (timing.hpp)
  std::string csv;                  // --csv FILE
  std::string json;                 // --json FILE
  double timeout_s = 300;           // --timeout: watchdog bound on one wait (s; 0 = off)
  bool quiet = false;               // no progress lines
  bool resume = false;              // --resume: skip configurations already in --csv
  std::vector<std::string> command_line;
};

}  // namespace cb
