/* Whether glibc's trim and mmap thresholds are still at their defaults (128 KiB) after
   MPI_Init: 160 KiB freed at the heap top is trimmed only if the trim threshold is below it,
   and a 132 KiB malloc is mmapped only if the mmap threshold is below it (the dynamic
   threshold raises both together). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  enum { kBlocks = 2000, kTop = 80, kBlock = 2048 };
  static char* ps[kBlocks];
  char* start = sbrk(0);
  for (int i = 0; i < kBlocks; ++i) {
    ps[i] = malloc(kBlock);
    memset(ps[i], 1, kBlock);
  }
  char* grown = sbrk(0);
  for (int i = kBlocks - 1; i >= kBlocks - kTop; --i) free(ps[i]); /* the top 160 KiB */
  char* after = sbrk(0);
  char* big = malloc(132 * 1024);
  const int heap = big >= start - (64L << 20) && big < (char*)sbrk(0);
  free(big);
  for (int i = kBlocks - kTop - 1; i >= 0; --i) free(ps[i]);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf(
        "heap grew %ld B; 160 KiB freed at its top: %s (%ld B returned); a 132 KiB malloc: %s\n",
        (long)(grown - start),
        grown - after > 0 ? "trimmed: trim threshold below 160 KiB" : "kept: trim threshold raised",
        (long)(grown - after),
        heap ? "heap: mmap threshold raised" : "mmapped: mmap threshold below 132 KiB");
  MPI_Finalize();
  return 0;
}
