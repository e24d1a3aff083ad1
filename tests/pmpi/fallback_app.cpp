// An ordinary MPI program (it knows nothing of collbench) for the launch
// tests: it makes calls the library runs (int allreduce, in-place alltoall
// on a split communicator) and calls it must hand to the MPI library (an
// allgather of a strided vector datatype, an allreduce with a user-defined
// op, an allreduce on an intercommunicator, a reduce-scatter with per-rank
// counts that differ), each twice, and checks every answer. Per rank it prints
// "fallback-app: ok" on success; a wrong answer prints what differed and
// exits 1. With the library preloaded, rank 0 also prints how many calls the
// library ran and how many fell back (looked up with dlsym, so the program
// runs without the library too).
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* what, int rank) {
  if (ok) return;
  std::printf("fallback-app: rank %d: wrong %s\n", rank, what);
  ++failures;
}

// inout[i] += in[i]: a user-defined op MPI cannot know is a sum.
void user_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

}  // namespace

// Long on purpose: one scripted MPI program, each intercepted or falling-back call after the other.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int p = 0, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);

  for (int round = 0; round < 2; ++round) {
    // Runs as a schedule: 5 ints, sum.
    std::vector<int> in(5), out(5, -1);
    for (int i = 0; i < 5; ++i) in[i] = me * 10 + i + round;
    MPI_Allreduce(in.data(), out.data(), 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 5; ++i)
      expect(out[i] == 10 * p * (p - 1) / 2 + p * (i + round), "allreduce sum", me);

    // Runs as a schedule: in-place alltoall of 3 doubles per peer on a
    // split communicator.
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    int hp = 0, hme = 0;
    MPI_Comm_size(half, &hp);
    MPI_Comm_rank(half, &hme);
    std::vector<double> a2a(static_cast<std::size_t>(3 * hp));
    for (int q = 0; q < hp; ++q)
      for (int k = 0; k < 3; ++k) a2a[static_cast<std::size_t>(3 * q + k)] = hme * 100 + q * 10 + k;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a.data(), 3, MPI_DOUBLE, half);
    for (int q = 0; q < hp; ++q)
      for (int k = 0; k < 3; ++k)
        expect(a2a[static_cast<std::size_t>(3 * q + k)] == q * 100 + hme * 10 + k, "alltoall",
               me);
    MPI_Comm_free(&half);

    // Falls back: every other int of a 4-int block (a strided vector type,
    // resized to span the whole block).
    MPI_Datatype vec, strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 4 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    MPI_Type_free(&vec);
    const int send[4] = {me * 4, -1, me * 4 + 1, -1};
    std::vector<int> recv(static_cast<std::size_t>(4 * p), -7);
    MPI_Allgather(send, 1, strided, recv.data(), 1, strided, MPI_COMM_WORLD);
    for (int r = 0; r < p; ++r) {
      const std::size_t at = static_cast<std::size_t>(4 * r);
      expect(recv[at] == r * 4 && recv[at + 2] == r * 4 + 1, "vector-type allgather data", me);
      expect(recv[at + 1] == -7 && recv[at + 3] == -7, "vector-type allgather gaps", me);
    }
    MPI_Type_free(&strided);

    // Falls back: a user-defined op.
    MPI_Op op;
    MPI_Op_create(user_sum, 1, &op);
    int v = me + 1 + round, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, op, MPI_COMM_WORLD);
    expect(sum == p * (p + 1) / 2 + p * round, "user-op allreduce", me);
    MPI_Op_free(&op);

    // Falls back: MPI_Reduce_scatter with per-rank counts 1, 2, ..., p.
    {
      std::vector<int> counts(static_cast<std::size_t>(p));
      int total = 0;
      for (int r = 0; r < p; ++r) total += counts[static_cast<std::size_t>(r)] = r + 1;
      std::vector<int> send(static_cast<std::size_t>(total)), got(static_cast<std::size_t>(me + 1));
      for (int i = 0; i < total; ++i) send[static_cast<std::size_t>(i)] = i + me + round;
      MPI_Reduce_scatter(send.data(), got.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      const int first = me * (me + 1) / 2;  // my block's offset
      for (int k = 0; k <= me; ++k)
        expect(got[static_cast<std::size_t>(k)] == p * (first + k + round) + p * (p - 1) / 2,
               "irregular reduce_scatter", me);
    }

    // Falls back: an intercommunicator between the even and the odd ranks;
    // each side gets the sum over the other side.
    if (p >= 2) {
      MPI_Comm side, inter;
      MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &side);
      MPI_Intercomm_create(side, 0, MPI_COMM_WORLD, me % 2 == 0 ? 1 : 0, 77, &inter);
      int mine = me + round, other = 0, want = 0;
      MPI_Allreduce(&mine, &other, 1, MPI_INT, MPI_SUM, inter);
      for (int r = 0; r < p; ++r)
        if (r % 2 != me % 2) want += r + round;
      expect(other == want, "intercommunicator allreduce", me);
      MPI_Comm_free(&inter);
      MPI_Comm_free(&side);
    }
  }

  using Calls = unsigned long long (*)(const char*, const char*);
  using Fallbacks = unsigned long long (*)(const char*);
  const auto calls = reinterpret_cast<Calls>(dlsym(RTLD_DEFAULT, "collbench_pmpi_calls"));
  const auto fallbacks = reinterpret_cast<Fallbacks>(dlsym(RTLD_DEFAULT, "collbench_pmpi_fallbacks"));
  if (me == 0 && calls && fallbacks) {
    unsigned long long ran = 0;
    const char* colls[] = {"allreduce", "reduce_scatter", "allgather", "alltoall"};
    const char* algos[] = {"naive", "ps", "ring", "tree", "dbtree", "butterfly", "rhd",
                           "bruck", "pairwise"};
    for (const char* c : colls)
      for (const char* a : algos) ran += calls(c, a);
    std::printf("fallback-app: schedules %llu, fallbacks allgather %llu allreduce %llu\n", ran,
                fallbacks("allgather"), fallbacks("allreduce"));
  }
  if (failures == 0) std::printf("fallback-app: ok\n");
  std::fflush(stdout);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
