// What the benchmark programs here share around their measurements: joining
// MPI, reading whole-number arguments, refusing bad input the same way (one
// line from rank 0, exit status 2) and finding libcollbench-pmpi.so's
// algorithm switch. Plain MPI and libc, nothing of collbench, so that
// osu_allreduce stays a program that knows nothing of it.
#pragma once

#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

struct BenchWorld {
  int rank = 0;
  int p = 0;
};

// MPI_Init, then this rank and the world's size.
inline BenchWorld join_world(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  BenchWorld w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.p);
  return w;
}

// The non-empty items of a comma-separated argument ("rhd,ring").
inline std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// `text` as a whole number > 0, all of it; nullopt otherwise.
inline std::optional<long> whole_positive(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (!end || *end || v <= 0) return std::nullopt;
  return v;
}

// Bad input: rank 0 prints `message` (one line) on stderr, every rank leaves
// MPI, and the program exits 2.
[[noreturn]] inline void refuse(const BenchWorld& w, const std::string& message) {
  if (w.rank == 0) std::fprintf(stderr, "%s\n", message.c_str());
  MPI_Finalize();
  std::exit(2);
}

// libcollbench-pmpi.so's collbench_pmpi_set_algorithm(collective, algorithm)
// (0 = switched), or nullptr when the library is not preloaded.
using SetAlgorithmFn = int (*)(const char*, const char*);
inline SetAlgorithmFn pmpi_set_algorithm() {
  return reinterpret_cast<SetAlgorithmFn>(dlsym(RTLD_DEFAULT, "collbench_pmpi_set_algorithm"));
}
