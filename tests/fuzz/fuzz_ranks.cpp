// --ranks: "2,4,8", "all", "pow2", "A..B", against launches of 1 and 4096
// ranks (the simulator's lists go that high).
#include "tests/fuzz/fuzz_input.hpp"
#include "harness/sweep/plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(cb::fuzz::as_text(data, size));
  for (int max : {1, 4, 4096}) {
    cb::fuzz::usage_errors_only([&] {
      for (int p : cb::parse_ranks(text, max, "this launch"))
        if (p < 1 || p > max) __builtin_trap();  // the contract of parse_ranks
    });
  }
  return 0;
}
