#include "harness/cli/size_flags.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

#include "algorithms/types.hpp"
#include "transports/contract/sizes.hpp"

namespace cb {

void add_size_flags(CLI::App& cmd, SizeFlags& f) {
  // -b/-e record that they were typed: with -m, the refusal names what the
  // user typed (CLI11's excludes() would name --minbytes for -b).
  cmd.add_option_function<std::string>(
         "-b,--minbytes",
         [&f](const std::string& v) {
           f.min_bytes = v;
           f.bounds_given += fmt::format("{}-b {}", f.bounds_given.empty() ? "" : " ", v);
         },
         "Smallest size S in bytes (K/M/G = 1024^n)")
      ->default_str(f.min_bytes);
  cmd.add_option_function<std::string>(
         "-e,--maxbytes",
         [&f](const std::string& v) {
           f.max_bytes = v;
           f.bounds_given += fmt::format("{}-e {}", f.bounds_given.empty() ? "" : " ", v);
         },
         "Largest size S in bytes")
      ->default_str(f.max_bytes);
  // Resolved into -b/-e at once, so everything downstream (the JSON
  // configuration, the header, error messages) sees one form. CLI11 runs the
  // callbacks in declaration order, so -m's bounds win over -b/-e's and
  // refuse_osu_meanings refuses the pair.
  cmd.add_option_function<std::string>(
         "-m,--message-size",
         [&f](const std::string& v) {
           f.osu_range = v;
           const std::size_t colon = v.find(':');
           if (colon != std::string::npos) f.min_bytes = v.substr(0, colon);
           f.max_bytes = colon == std::string::npos ? v : v.substr(colon + 1);
         },
         "OSU's [MIN:]MAX instead of -b/-e, e.g. -m 1K:4M or -m 64K (MIN stays -b's default)");
  cmd.add_option_function<std::string>(
         "-f,--stepfactor",
         [&f](const std::string& v) {
           f.factor = v;
           f.factor_given = true;
         },
         "Size multiplication factor (>= 2; nccl-tests' -f, not OSU's)")
      ->default_str(f.factor);
  cmd.add_option_function<std::string>(
         "-i,--stepbytes",
         [&f](const std::string& v) {
           f.increment = v;
           f.increment_given = true;
         },
         "Size increment in bytes, replaces -f (nccl-tests' -i; OSU's iterations are -n)")
      ->default_str(f.increment);
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

void refuse_osu_meanings(const SizeFlags& f) {
  const bool osu = !f.osu_range.empty() || f.osu_warmup;
  if (!osu) return;
  const char* with = !f.osu_range.empty() ? "-m" : "-x";
  if (!f.osu_range.empty() && !f.bounds_given.empty())
    throw UsageError(fmt::format(
        "-m {} with {}: OSU's -m [MIN:]MAX replaces nccl-tests' -b/-e; give one or the other",
        f.osu_range, f.bounds_given));
  if (f.increment_given)
    throw UsageError(fmt::format(
        "-i {} with OSU's {}: collbench's -i is nccl-tests' size increment in bytes; for OSU's "
        "iteration count use -n {} (timed iterations) and -w or -x (warm-up)",
        f.increment, with, f.increment));
  if (f.factor_given)
    throw UsageError(fmt::format(
        "-f {} with OSU's {}: collbench's -f is nccl-tests' size factor; OSU's -f (full "
        "statistics) is always on: the table shows the median, min and p95, and --csv adds the "
        "mean, max and the median's 95% CI",
        f.factor, with));
}

std::vector<std::size_t> requested_sizes(const SizeFlags& f) {
  refuse_osu_meanings(f);
  const std::size_t increment = parse_bytes(f.increment, "-i");
  const bool osu = !f.osu_range.empty();
  const auto sweep = [&] {
    return size_sweep(parse_bytes(f.min_bytes, osu ? "-m (MIN)" : "-b"),
                      parse_bytes(f.max_bytes, osu ? "-m (MAX)" : "-e"),
                      increment > 0 ? 2 : parse_factor(f.factor), increment);
  };
  if (!osu) return sweep();
  // -m is split into -b and -e before parsing: the line names what the user typed.
  try {
    return sweep();
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("bad -m '{}' ([MIN:]MAX in bytes, MIN <= MAX): {}", f.osu_range,
                                 e.what()));
  }
}

}  // namespace cb
