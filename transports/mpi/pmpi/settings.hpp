// The library's settings as the ranks of one job must agree on them.
//
// Every rank reads its own environment (config.hpp), and mpiexec can give
// ranks different ones (`-n 1 -env COLLBENCH_ALGO ring ./a : -n 1 -env
// COLLBENCH_ALGO rhd ./a`). Ranks that run different schedules for one
// collective wait for each other for ever, so at MPI_Init every rank sends
// one hash per variable to an all-reduce (interpose.cpp) and the job stops
// with one line when any differs. MPI-free here, so it is unit-tested.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace cb::pmpi {

// Every variable config.hpp reads, in a fixed order.
inline constexpr std::array<const char*, 12> kSettingNames = {
    "COLLBENCH_ALGO",           "COLLBENCH_ALLREDUCE",  "COLLBENCH_REDUCE_SCATTER",
    "COLLBENCH_ALLGATHER",      "COLLBENCH_ALLTOALL",   "COLLBENCH_PARAMS",
    "COLLBENCH_PARAMS_TRANSPORT", "COLLBENCH_TERMS",    "COLLBENCH_SELECTION",
    "COLLBENCH_REPORT",         "COLLBENCH_MAX_BYTES",  "COLLBENCH_WAIT"};

// One 64-bit FNV-1a hash per variable of kSettingNames, of its value as this
// process's environment holds it; an unset variable hashes apart from every
// value (the empty one included).
std::array<std::uint64_t, kSettingNames.size()> setting_hashes();

// "COLLBENCH_ALGO=ring" or "COLLBENCH_ALGO unset": this rank's value of
// variable `index`, for the message that names a difference.
std::string describe_setting(std::size_t index);

}  // namespace cb::pmpi
