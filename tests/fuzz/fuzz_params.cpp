// The parameter files: a `collbench calibrate` calibration or a `fit` fit.csv,
// as --params, --calibration and the simulator read them.
#include "tests/fuzz/fuzz_input.hpp"
#include "models/calibration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = cb::fuzz::as_file(cb::fuzz::as_text(data, size), ".csv");
  cb::fuzz::usage_errors_only([&] { (void)cb::models::load_model_params(path); });
  cb::fuzz::usage_errors_only([&] { (void)cb::models::load_model_params(path, "mpi"); });
  cb::fuzz::usage_errors_only([&] { (void)cb::models::read_calibration(path); });
  return 0;
}
