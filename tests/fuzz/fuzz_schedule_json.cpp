// The schedule JSON loader (replayed failing cases), then the validator a
// loaded schedule set goes through before it runs.
#include "algorithms/schedule_json.hpp"
#include "algorithms/validate.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cb::fuzz::usage_errors_only([&] {
    const std::vector<cb::Schedule> all = cb::schedules_from_json(cb::fuzz::as_text(data, size));
    (void)cb::validate(all);
  });
  return 0;
}
