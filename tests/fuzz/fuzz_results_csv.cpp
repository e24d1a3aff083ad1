// The results CSV as `collbench fit` reads it (parse, validate, analyse with
// few bootstrap resamples) and as `run --resume` reads it.
#include "tests/fuzz/fuzz_input.hpp"
#include "harness/report/resume.hpp"
#include "models/analysis.hpp"
#include "models/results_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = cb::fuzz::as_text(data, size);
  cb::fuzz::usage_errors_only([&] {
    const cb::models::ResultsFile results = cb::models::parse_results_csv(text, "fuzz.csv");
    cb::models::AnalysisOptions opt;
    opt.config_resamples = 3;
    opt.global_resamples = 3;
    (void)cb::models::analyze(results, opt);
  });
  const std::string path = cb::fuzz::as_file(text, ".csv");
  cb::fuzz::usage_errors_only([&] { (void)cb::load_resume(path); });
  return 0;
}
