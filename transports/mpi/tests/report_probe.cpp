// Launched by one_report.sh, never as a test of its own: a GoogleTest binary
// with the MPI tests' main() whose only test fails on rank 1, and whose rank 1
// finishes last, so that if rank 1 wrote the XML report it would be the one
// left in the file.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Global environments are torn down before the report is written.
class RankOneLast : public ::testing::Environment {
 public:
  void TearDown() override {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank() == 1) usleep(300'000);
  }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new RankOneLast);

TEST(ReportProbe, FailsOnRankOne) {
  EXPECT_NE(rank(), 1) << "rank-1-failure-marker";
}

}  // namespace
