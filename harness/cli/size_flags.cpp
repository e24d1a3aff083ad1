#include "harness/cli/size_flags.hpp"

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

std::vector<std::size_t> requested_sizes(const SizeFlags& f) {
  return size_sweep(parse_bytes(f.min_bytes, "-b"), parse_bytes(f.max_bytes, "-e"), f.factor,
                    parse_bytes(f.increment, "-i"));
}

}  // namespace cb
