// The size and unit parsers: -b/-e/-i sizes (parse_bytes) and the
// simulator's and predict's --alpha/--beta/--bandwidth values.
#include "tests/fuzz/fuzz_input.hpp"
#include "transports/contract/sizes.hpp"
#include "transports/sim/net_params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = cb::fuzz::as_text(data, size);
  cb::fuzz::usage_errors_only([&] {
    const std::size_t bytes = cb::parse_bytes(text, "-b");
    // What parses as a size also prints as one and parses back, digits only.
    (void)cb::format_bytes(bytes);
    if (cb::parse_bytes(std::to_string(bytes), "-b") != bytes) __builtin_trap();
  });
  cb::fuzz::usage_errors_only([&] { (void)cb::sim::parse_seconds(text, "--alpha"); });
  cb::fuzz::usage_errors_only([&] { (void)cb::sim::parse_seconds_per_byte(text, "--beta"); });
  cb::fuzz::usage_errors_only([&] { (void)cb::sim::parse_bandwidth(text, "--bandwidth"); });
  return 0;
}
