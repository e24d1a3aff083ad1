// libcb-finalize-announce.so: preloaded into every rank of
// `scripts/testbed.sh exec`, it writes "0" to $COLLBENCH_EXIT_FILE when the
// program calls MPI_Finalize, then finalizes as the program asked.
//
// Why: UCX over TCP can hang in MPI_Finalize with 4 or more ranks (UCX #8738).
// collbench announces its exit status itself before finalizing
// (harness/runtime/world_common.cpp) so the testbed can end a stuck job;
// an arbitrary MPI program does not, and this library announces for it. A
// rank that reaches MPI_Finalize has done its work, so its status is 0; a
// program that fails exits without finalizing, announces nothing, and the
// testbed reports it as not finished.
//
// The next MPI_Finalize is looked up with RTLD_NEXT, not called as
// PMPI_Finalize, so another preloaded interposer behind this one
// (libcollbench-pmpi.so prints its counters in its MPI_Finalize) still runs.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// Written under a temporary name and renamed, as collbench does, so the
// testbed never reads a half-written file. Best effort: the exit status of
// the program matters more than the announcement.
void announce_done() {
  const char* path = std::getenv("COLLBENCH_EXIT_FILE");
  if (path == nullptr || *path == '\0') return;
  std::fflush(nullptr);
  char tmp[4096];
  if (std::snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, static_cast<int>(::getpid())) >=
      static_cast<int>(sizeof tmp))
    return;
  const int fd = ::open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const bool written = ::write(fd, "0\n", 2) == 2;
  ::close(fd);
  if (!written || ::rename(tmp, path) != 0) ::unlink(tmp);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int MPI_Finalize() {
  announce_done();
  using Finalize = int (*)();
  auto next = reinterpret_cast<Finalize>(::dlsym(RTLD_NEXT, "MPI_Finalize"));
  if (next == nullptr) {
    std::fprintf(stderr, "cb-finalize-announce: no MPI_Finalize after this library\n");
    std::abort();
  }
  return next();
}
