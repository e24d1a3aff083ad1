// The size-sweep flags nccl-tests users type (-b -e -f -i), registered the
// same way by every subcommand that sweeps sizes (run, map, predict).
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace cb {

struct SizeFlags {
  std::string min_bytes = "8";    // -b, bytes with K/M/G suffixes (powers of 1024)
  std::string max_bytes = "64M";  // -e
  std::string factor = "2";       // -f, an integer >= 2 (text: "-2" must not wrap around)
  std::string increment = "0";    // -i, bytes; 0 = use -f
  std::string osu_range;          // -m [MIN:]MAX as typed (already applied to -b/-e)
  std::string bounds_given = "";  // "-b X -e Y" as typed, for -m's refusal
  bool factor_given = false;      // -f was typed
  bool increment_given = false;   // -i was typed
  bool osu_warmup = false;        // OSU's -x was typed (the command sets it)
};

// Adds -b/--minbytes, -e/--maxbytes, -f/--stepfactor, -i/--stepbytes bound to
// `f` (whose current values are the defaults shown in --help), and OSU's
// -m/--message-size [MIN:]MAX, which is refused together with -b/-e.
void add_size_flags(CLI::App& cmd, SizeFlags& f);

// -f as a number: UsageError unless it is a plain integer >= 2.
std::size_t parse_factor(const std::string& text);

// An OSU user's -i (iterations) or -f (full statistics) among OSU flags (-m,
// -x), where collbench's -i/-f are nccl-tests' size step, and -m beside -b/-e:
// UsageError naming what to use instead. Called by requested_sizes.
void refuse_osu_meanings(const SizeFlags& f);

// The sizes S (bytes) the flags ask for; UsageError naming the flag on bad input.
std::vector<std::size_t> requested_sizes(const SizeFlags& f);

}  // namespace cb
