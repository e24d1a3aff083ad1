// Two threads of each rank run collectives at the same time, each on its own
// communicator, under MPI_THREAD_MULTIPLE: the library's concurrency promise
// (README.md of transports/mpi/pmpi). Each thread checks its answers; rank 0
// prints how many calls the library ran as schedules (dlsym, so the program
// runs without the library too). Prints "threads-app: ok" per rank.
#include <dlfcn.h>
#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (provided < MPI_THREAD_MULTIPLE) {
    std::printf("threads-app: skipped: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Finalize();
    return 0;
  }
  constexpr int kThreads = 2, kRounds = 100;
  std::vector<MPI_Comm> comms(kThreads);
  for (MPI_Comm& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        std::vector<int> in(7), out(7);
        for (int i = 0; i < 7; ++i) in[i] = me + i * 100 + t * 10000 + round;
        MPI_Allreduce(in.data(), out.data(), 7, MPI_INT, MPI_SUM, comms[t]);
        for (int i = 0; i < 7; ++i)
          if (out[i] != p * (p - 1) / 2 + p * (i * 100 + t * 10000 + round)) ++wrong;
        std::vector<long> all(static_cast<std::size_t>(3 * p));
        const long mine[3] = {me * 3L + t, me * 3L + 1 + t, me * 3L + 2 + t};
        MPI_Allgather(mine, 3, MPI_LONG, all.data(), 3, MPI_LONG, comms[t]);
        for (int i = 0; i < 3 * p; ++i)
          if (all[static_cast<std::size_t>(i)] != i + t) ++wrong;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
  using Calls = unsigned long long (*)(const char*, const char*);
  const auto calls = reinterpret_cast<Calls>(dlsym(RTLD_DEFAULT, "collbench_pmpi_calls"));
  if (me == 0 && calls)
    std::printf("threads-app: ring schedules %llu\n",
                calls("allreduce", "ring") + calls("allgather", "ring"));
  if (wrong == 0) std::printf("threads-app: ok\n");
  else std::printf("threads-app: rank %d: %d wrong elements\n", me, wrong.load());
  std::fflush(stdout);
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}
