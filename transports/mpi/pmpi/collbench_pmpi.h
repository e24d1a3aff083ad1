/* Optional C entry points of libcollbench-pmpi.so, for tests and tools that
 * want to steer or inspect the library from inside a program. A program run
 * unmodified under LD_PRELOAD needs none of them; look them up with
 * dlsym(RTLD_DEFAULT, "collbench_pmpi_...") so the program also runs without
 * the library. Collective names: "allreduce", "reduce_scatter" (for
 * MPI_Reduce_scatter_block), "allgather", "alltoall". */
#ifndef COLLBENCH_PMPI_H
#define COLLBENCH_PMPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Sets what `collective` (NULL: all four) runs from now on, as the
 * environment variables do: an algorithm name, "mpi", "auto" or "selection".
 * Every rank must make the same call between the same collectives, and no
 * collective may run concurrently with it. Returns 0, or -1 (with the same
 * one-line message the environment would give on stderr) when the value is
 * not accepted, leaving the choice as it was. */
int collbench_pmpi_set_algorithm(const char* collective, const char* value);

/* Calls of `collective` this process ran with `algorithm` ("mpi": passed to
 * the MPI library because it was chosen, not as a fallback). */
unsigned long long collbench_pmpi_calls(const char* collective, const char* algorithm);

/* Calls of `collective` that fell back to the MPI library, any reason. */
unsigned long long collbench_pmpi_fallbacks(const char* collective);

#ifdef __cplusplus
}
#endif

#endif
