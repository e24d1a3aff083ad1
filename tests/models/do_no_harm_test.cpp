// The do-no-harm rule (models/do_no_harm.hpp): a schedule replaces the
// library only where its predicted gain exceeds the validated error; the
// validated error per (collective, ranks, size band) from a fit's
// predictions.csv; the best calibrated source from its accuracy.csv.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algorithms/types.hpp"
#include "models/do_no_harm.hpp"

namespace cb::models {
namespace {

TEST(DoNoHarm, GainMustExceedTheErrorOfBothPredictions) {
  // 3x predicted: beyond a 30% error (3 * 0.7 = 2.1 > 1 * 1.3), inside 60%
  // (3 * 0.4 = 1.2 < 1.6).
  EXPECT_TRUE(gain_beyond_error(1, 3, 0.3));
  EXPECT_FALSE(gain_beyond_error(1, 3, 0.6));
  // No validated error: the prediction as it is; equal times are no gain.
  EXPECT_TRUE(gain_beyond_error(1, 1.01, std::nan("")));
  EXPECT_FALSE(gain_beyond_error(1, 1, 0));
  EXPECT_FALSE(gain_beyond_error(2, 1, 0));
  EXPECT_TRUE(gain_beyond_error(1, 1.01, -0.5));  // a negative error counts as none
}

TEST(DoNoHarm, ValidatedErrorPerCollectiveRanksAndBand) {
  const std::string csv =
      "transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,measured_s,"
      "predicted_s,rel_err,params,lower_bound_s\n"
      "mpi,allreduce,ring,fp32,sum,out,4,1024,256,1,1,0.10,calibration,\n"
      "mpi,allreduce,rhd,fp32,sum,out,4,2048,512,1,1,-0.30,calibration,\n"
      "mpi,allreduce,naive,fp32,sum,out,4,4096,1024,1,1,0.20,calibration,\n"
      "mpi,allreduce,ring,fp32,sum,out,8,1048576,262144,1,1,0.05,calibration,\n"
      "mpi,allgather,ring,fp32,,out,4,1048576,65536,1,1,0.40,calibration,\n"
      "mpi,allreduce,ring,fp32,sum,out,4,1024,256,1,1,0.90,calibration+abc,\n"
      "ipc,allreduce,ring,fp32,sum,out,4,1024,256,1,1,0.90,calibration,\n";
  const ValidatedError e(csv, "predictions.csv", "calibration", "mpi");
  EXPECT_FALSE(e.empty());
  // Its own cell: the median |err| of 0.10, 0.30, 0.20.
  EXPECT_DOUBLE_EQ(e.at(Collective::allreduce, 4, 1024), 0.20);
  // p = 6 was not validated below 64 KiB: the collective's band over every p.
  EXPECT_DOUBLE_EQ(e.at(Collective::allreduce, 6, 8), 0.20);
  EXPECT_DOUBLE_EQ(e.at(Collective::allreduce, 8, 1 << 20), 0.05);
  // alltoall was not validated: the band over every collective.
  EXPECT_DOUBLE_EQ(e.at(Collective::alltoall, 4, 1 << 20), 0.225);  // median of 0.05, 0.40
  // all-gather below 64 KiB was not validated: the small band over everything.
  EXPECT_DOUBLE_EQ(e.at(Collective::allgather, 4, 64), 0.20);
  EXPECT_TRUE(ValidatedError(csv, "p.csv", "calibration+abcd", "mpi").empty());
  EXPECT_TRUE(std::isnan(ValidatedError(csv, "p.csv", "global", "mpi").at(Collective::allreduce, 4, 8)));
  EXPECT_THROW(ValidatedError("a,b\n1,2\n", "p.csv", "calibration", "mpi"), UsageError);
}

TEST(DoNoHarm, BestCalibratedSourceHasTheLowestWorseBand) {
  const std::string csv =
      "params,transport,rows_large,median_abs_err_large,rows_small,median_abs_err_small,"
      "worst_collective,worst_collective_median_abs_err,picks_right,picks,median_regret,"
      "worst_regret\n"
      "global,mpi,10,0.01,10,0.01,ring,0.1,1,1,0,0\n"
      "calibration,mpi,10,0.08,10,0.30,ring,0.1,1,1,0,0\n"
      "calibration+a,mpi,10,0.10,10,0.12,ring,0.1,1,1,0,0\n"
      "calibration+abcd,mpi,10,0.05,10,0.20,ring,0.1,1,1,0,0\n"
      "calibration+ab,ipc,10,0.01,10,0.01,ring,0.1,1,1,0,0\n";
  const auto best = best_calibrated_source(csv, "accuracy.csv", "mpi");
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->params, "calibration+a");
  EXPECT_EQ(best->terms, "a");
  EXPECT_DOUBLE_EQ(best->median_small, 0.12);
  EXPECT_FALSE(best_calibrated_source(csv, "accuracy.csv", "nccl").has_value());
}

}  // namespace
}  // namespace cb::models
