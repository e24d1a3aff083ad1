#include "harness/cli/size_flags.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

#include "algorithms/types.hpp"
#include "harness/sweep/sizes.hpp"

namespace cb {

void add_size_flags(CLI::App& cmd, SizeFlags& f) {
  cmd.add_option("-b,--minbytes", f.min_bytes, "Smallest size S in bytes (K/M/G = 1024^n)")
      ->capture_default_str();
  cmd.add_option("-e,--maxbytes", f.max_bytes, "Largest size S in bytes")->capture_default_str();
  cmd.add_option("-f,--stepfactor", f.factor, "Size multiplication factor (>= 2)")
      ->capture_default_str();
  cmd.add_option("-i,--stepbytes", f.increment, "Size increment in bytes (replaces -f)")
      ->capture_default_str();
}

std::size_t parse_factor(const std::string& text) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  // from_chars into an unsigned type refuses a sign, so "-2" cannot wrap.
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc{} || ptr != end || text.empty() || v < 2)
    throw UsageError(fmt::format(
        "bad -f {}: the size factor must be an integer from 2 to 18446744073709551615", text));
  return static_cast<std::size_t>(v);
}

std::vector<std::size_t> requested_sizes(const SizeFlags& f) {
  const std::size_t increment = parse_bytes(f.increment, "-i");
  return size_sweep(parse_bytes(f.min_bytes, "-b"), parse_bytes(f.max_bytes, "-e"),
                    increment > 0 ? 2 : parse_factor(f.factor), increment);
}

}  // namespace cb
