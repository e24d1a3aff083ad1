// main() for GoogleTest binaries launched by mpiexec: every rank runs every
// test (the tests agree on failures through MPI), and only rank 0 prints and
// writes the XML report meson reads. Two ranks writing the same
// --gtest_output file at once left "junk after document element", which
// crashed meson's report parser (one_report.sh here checks this).
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    // InitGoogleTest has already installed the XML writer for the path it
    // parsed, so clearing the flag alone is not enough: remove the writer.
    GTEST_FLAG_SET(output, "");
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    delete listeners.Release(listeners.default_xml_generator());
  }
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}
