// Helpers for the IPC tests that run under mpiexec.
#pragma once

#include <dirent.h>
#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "harness/runtime/group_mpi.hpp"
#include "transports/ipc/shm/segment.hpp"

namespace cb::ipc::test {

// The bootstrap group of every test: all ranks (MPI_COMM_WORLD, never freed).
inline Group& world_group() {
  static MpiGroup world(MPI_COMM_WORLD, WaitPolicy::yield);
  return world;
}

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}
// Sum of `n` over all ranks, everywhere: a failure on any rank fails the test
// on every rank, and rank 0 (the one that reports) sees it.
inline long long sum_all(long long n) {
  long long total = 0;
  MPI_Allreduce(&n, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

// Seeded pseudo-random bytes: any bit pattern (NaNs included) must come out
// bit-identical, because both sides use the same reduction kernels.
inline std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::byte> out(n);
  for (auto& b : out) b = static_cast<std::byte>(gen() & 0xff);
  return out;
}

// Segments in /dev/shm created by this process (its pid is in the name).
inline std::vector<std::string> own_segments() {
  std::vector<std::string> names;
  const std::string prefix = fmt::format("{}{}-", kSegmentPrefix, ::getpid());
  if (DIR* d = ::opendir("/dev/shm")) {
    while (const dirent* e = ::readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) names.emplace_back(e->d_name);
    ::closedir(d);
  }
  return names;
}

}  // namespace cb::ipc::test
