#include "transports/contract/sizes.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>
#include <string>

#include "algorithms/collective.hpp"

namespace cb {
namespace {
// The most sizes one sweep may have (size_sweep): 2^20, beyond any sweep
// that could finish; docs/reliability-cli.md.
constexpr std::size_t kMaxSweepSizes = std::size_t{1} << 20;
}  // namespace

std::size_t parse_bytes(std::string_view text, std::string_view flag) {
  const auto bad = [&] {
    return UsageError(
        fmt::format("bad size '{}' for {} (expected a byte count such as 8, 64K, 1M or 2G; "
                    "K/M/G are powers of 1024)",
                    text, flag));
  };
  std::size_t value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc{} || end == first) throw bad();
  std::string suffix(end, last);
  for (char& ch : suffix) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  unsigned shift = 0;
  if (suffix.empty() || suffix == "B")
    shift = 0;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB")
    shift = 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB")
    shift = 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB")
    shift = 30;
  else
    throw bad();
  if (value > (std::numeric_limits<std::size_t>::max() >> shift)) throw bad();
  return value << shift;
}

std::string format_bytes(std::size_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{} B", bytes);
  if (v == static_cast<double>(static_cast<std::size_t>(v)))
    return fmt::format("{} {}", static_cast<std::size_t>(v), kUnits[u]);
  // Three significant digits, but never an exponent: a rank-divided size just
  // under a unit (1048572 B = 1023.996 KiB) prints as "1024 KiB", not "1.02e+03 KiB".
  if (v >= 100) return fmt::format("{:.0f} {}", v, kUnits[u]);
  return fmt::format("{:.3g} {}", v, kUnits[u]);
}

std::vector<std::size_t> size_sweep(std::size_t begin, std::size_t end, std::size_t factor,
                                    std::size_t increment) {
  if (begin == 0) throw UsageError("bad -b 0: the smallest size must be at least 1 byte");
  if (begin > end)
    throw UsageError(
        fmt::format("bad size range: -b {} is larger than -e {} (need -b <= -e)", begin, end));
  if (increment == 0 && factor < 2)
    throw UsageError(fmt::format("bad -f {}: the size factor must be an integer >= 2", factor));
  std::vector<std::size_t> sizes;
  for (std::size_t s = begin; s <= end;) {
    // `-i 4 -e 64M` asked for 16 Mi sizes: weeks of measuring, gigabytes of
    // plan, and seconds before a signal was seen.
    if (sizes.size() == kMaxSweepSizes)
      throw UsageError(fmt::format(
          "-b {} .. -e {} in steps of {} gives more than {} sizes (accepted: at most {}; raise "
          "-i or -f, or narrow -b .. -e)",
          begin, end, increment > 0 ? fmt::format("+{} B", increment) : fmt::format("x{}", factor),
          kMaxSweepSizes, kMaxSweepSizes));
    sizes.push_back(s);
    std::size_t next = 0;
    const bool overflow = increment > 0 ? __builtin_add_overflow(s, increment, &next)
                                        : __builtin_mul_overflow(s, factor, &next);
    if (overflow) break;  // the next size would not fit: s was the last
    s = next;
  }
  return sizes;
}

std::size_t count_for_bytes(Collective coll, DataType dtype, int p, std::size_t bytes) {
  std::size_t unit = element_size(dtype);
  if (collective_spec(coll).size_per_rank) unit *= static_cast<std::size_t>(p);
  return bytes / unit;
}

std::size_t bytes_for_count(Collective coll, DataType dtype, int p, std::size_t count) {
  std::size_t unit = element_size(dtype);
  if (collective_spec(coll).size_per_rank) unit *= static_cast<std::size_t>(p);
  return count * unit;
}

}  // namespace cb
