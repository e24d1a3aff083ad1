// models/spread_probes.hpp: each pair's mode probe as probes.csv gives it to
// model_spread_summary.py, which only formats the figures.
#include "models/spread_probes.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "algorithms/types.hpp"

namespace cb::models {
namespace {

namespace fs = std::filesystem;

struct Spread {
  fs::path dir = fs::temp_directory_path() / ("cb-spread-probes-" + std::to_string(::getpid()));
  Spread() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Spread() { fs::remove_all(dir); }
  // Pair `n` with a calibration (probe cells as given) and a sweep of `rows`.
  void pair(int n, const std::string& cal_probe, const std::string& rows) const {
    const fs::path p = dir / ("pair-" + std::to_string(n));
    fs::create_directories(p / "fit");
    std::ofstream(p / "fit" / "accuracy.csv") << "params,scope\ncalibration,all\n";
    std::ofstream(p / "calibration.csv") << "alpha_s,probe_small_s,probe_large_s\n1e-6,"
                                         << cal_probe << "\n";
    std::ofstream(p / "sweep.csv") << "bytes,probe_small_us,probe_large_us\n" << rows;
  }
};

TEST(SpreadProbes, MedianMinMaxOverTheRowsWithAProbeAndEmptyCellsWithout) {
  Spread s;
  // Four rows with a probe (median of an even count: the mean of the middle
  // two) and one without, which does not count.
  s.pair(1, "2.5e-07,2e-05", "8,0.2,18\n8,0.4,20\n8,,\n8,0.1,17\n8,0.7,84\n");
  s.pair(2, ",", "8,0.2,18\n");     // a calibration without the probe
  s.pair(3, "2e-07,2e-05", "8,,\n");  // a sweep without it
  EXPECT_EQ(spread_probes_csv(s.dir.string()),
            "pair,calibration_small_us,calibration_large_us,sweep_rows,sweep_small_median_us,"
            "sweep_small_min_us,sweep_small_max_us,sweep_large_median_us,sweep_large_min_us,"
            "sweep_large_max_us\n"
            "1,0.25,20,4,0.30000000000000004,0.1,0.7,19,17,84\n"
            "2,,,,,,,,,\n"
            "3,,,,,,,,,\n");
}

TEST(SpreadProbes, AMalformedProbeIsRefused) {
  Spread s;
  s.pair(1, "2e-07,2e-05", "8,fast,18\n");
  EXPECT_THROW(spread_probes_csv(s.dir.string()), UsageError);
}

}  // namespace
}  // namespace cb::models
