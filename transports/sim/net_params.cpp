#include "transports/sim/net_params.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "algorithms/types.hpp"
#include "models/model_params.hpp"

namespace cb::sim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "3.7us" into 3.7 and "us"; nullopt-like failure via ok=false.
std::pair<double, std::string_view> split_number(std::string_view text, bool& ok) {
  text = trim(text);
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  ok = ec == std::errc() && ptr != text.data() && std::isfinite(v);
  return {v, trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)))};
}

// Seconds in one unit of a time suffix; 0 when the suffix is not a time unit.
double time_unit(std::string_view unit) {
  if (unit.empty() || unit == "s") return 1;
  if (unit == "ms") return 1e-3;
  if (unit == "us" || unit == "µs" || unit == "μs") return 1e-6;
  if (unit == "ns") return 1e-9;
  if (unit == "ps") return 1e-12;
  return 0;
}

[[noreturn]] void bad(std::string_view what, std::string_view text, std::string_view accepted) {
  throw UsageError(fmt::format("bad {} '{}' (accepted: {})", what, text, accepted));
}

void require(bool ok, std::string_view what, double v, std::string_view rule) {
  if (!ok || !std::isfinite(v))
    throw UsageError(fmt::format("bad {} {} (must be {})", what, v, rule));
}

std::string seconds_text(double s) {
  if (s == 0) return "0";
  if (s >= 1) return fmt::format("{:.4g}s", s);
  if (s >= 1e-3) return fmt::format("{:.4g}ms", s * 1e3);
  if (s >= 1e-6) return fmt::format("{:.4g}us", s * 1e6);
  if (s >= 1e-11) return fmt::format("{:.4g}ns", s * 1e9);
  return fmt::format("{:.4g}ps", s * 1e12);
}

// The largest model parameters taken. Beyond them no network exists, and
// the sweep's times overflow to inf (--alpha 1e300 made every row inf):
// an hour per message or delay, a second per byte (1 B/s), a petabyte per
// second.
constexpr double kMaxSeconds = models::kMaxModelSeconds;
constexpr double kMaxSecondsPerByte = models::kMaxModelSecondsPerByte;
constexpr double kMaxBytesPerSecond = 1e15;

void at_most(double v, double max, std::string_view what, std::string_view text,
             std::string_view unit) {
  if (v > max)
    throw UsageError(fmt::format("bad {} '{}': above {:g} {} (accepted: 0 to {:g} {})", what,
                                 text, max, unit, max, unit));
}

}  // namespace

void validate(const NetworkParams& net) {
  require(net.alpha_s > 0, "alpha", net.alpha_s, "> 0 seconds per message");
  require(net.beta_s_per_B > 0, "beta", net.beta_s_per_B, "> 0 seconds per byte");
  require(net.gamma_s_per_B >= 0, "gamma", net.gamma_s_per_B, ">= 0 seconds per reduced byte");
  require(net.overhead_s >= 0, "overhead o", net.overhead_s, ">= 0 seconds");
  require(net.skew_s >= 0, "skew", net.skew_s, ">= 0 seconds");
  require(net.noise_s >= 0, "noise", net.noise_s, ">= 0 seconds");
  if (net.ranks_per_node < 0)
    throw UsageError(fmt::format("bad ranks per node {} (must be >= 0; 0 = flat network)",
                                 net.ranks_per_node));
  if (net.ranks_per_node > 0) {
    require(net.intra_alpha_s > 0, "intra-node alpha", net.intra_alpha_s, "> 0 seconds");
    require(net.intra_beta_s_per_B > 0, "intra-node beta", net.intra_beta_s_per_B,
            "> 0 seconds per byte");
  }
  if (net.network_gap_s >= 0) {
    require(net.network_gap_s <= net.alpha_s, "network gap", net.network_gap_s,
            "at most alpha seconds");
    if (net.ranks_per_node == 0)
      throw UsageError(
          "a network gap prices the network level of two levels and needs ranks per "
          "node (accepted: a gap with --ranks-per-node K, or none)");
  }
}

double parse_seconds(std::string_view text, std::string_view what) {
  constexpr std::string_view kAccepted = "seconds such as 3.7e-6, 3.7us, 250ns, 2ms";
  bool ok = false;
  auto [v, unit] = split_number(text, ok);
  const double scale = time_unit(unit);
  if (!ok || scale == 0) bad(what, text, kAccepted);
  at_most(v * scale, kMaxSeconds, what, text, "seconds");
  return v * scale;
}

double parse_seconds_per_byte(std::string_view text, std::string_view what) {
  constexpr std::string_view kAccepted = "seconds per byte such as 4.35e-10, 0.435ns, 0.435ns/B";
  bool ok = false;
  auto [v, unit] = split_number(text, ok);
  if (unit.ends_with("/B")) unit.remove_suffix(2);
  const double scale = time_unit(unit);
  if (!ok || scale == 0) bad(what, text, kAccepted);
  at_most(v * scale, kMaxSecondsPerByte, what, text, "seconds per byte");
  return v * scale;
}

double parse_bandwidth(std::string_view text, std::string_view what) {
  constexpr std::string_view kAccepted =
      "bytes per second such as 2.3GB/s, 800MB/s, 1.5GiB/s, 25Gbit/s or 2.3e9";
  bool ok = false;
  auto [v, unit] = split_number(text, ok);
  if (!ok) bad(what, text, kAccepted);
  if (unit.ends_with("/s")) unit.remove_suffix(2);
  else if (unit.ends_with("ps") && unit.size() > 2) unit.remove_suffix(2);  // "Gbps"
  double scale = 1;
  if (!unit.empty()) {
    const char prefix = unit.front();
    const bool binary = unit.size() >= 2 && unit[1] == 'i';
    double base = 0;
    switch (prefix) {
      case 'K': case 'k': base = binary ? 1024.0 : 1e3; break;
      case 'M': base = binary ? 1048576.0 : 1e6; break;
      case 'G': base = binary ? 1073741824.0 : 1e9; break;
      case 'T': base = binary ? 1099511627776.0 : 1e12; break;
      default: base = 1;
    }
    std::string_view rest = unit;
    if (base != 1) rest.remove_prefix(binary ? 2 : 1);
    if (rest == "B" || rest.empty()) scale = base;
    else if (rest == "bit" || rest == "b") scale = base / 8;
    else bad(what, text, kAccepted);
  }
  const double bw = v * scale;
  if (!(bw > 0) || !std::isfinite(bw)) bad(what, text, kAccepted);
  at_most(bw, kMaxBytesPerSecond, what, text, "bytes per second");
  if (bw < 1 / kMaxSecondsPerByte)
    throw UsageError(fmt::format("bad {} '{}': below 1 byte per second (accepted: 1 to {:g} bytes "
                                 "per second)",
                                 what, text, kMaxBytesPerSecond));
  return bw;
}

std::string describe(const NetworkParams& net) {
  // A zero cost has no bandwidth to show ("0/B" read like a typo): say what it means.
  const auto per_byte = [](double s_per_B, const char* zero) {
    return s_per_B > 0 ? fmt::format("{}/B ({:.4g} GB/s)", seconds_text(s_per_B), 1e-9 / s_per_B)
                       : std::string(zero);
  };
  std::string s = fmt::format("alpha={} beta={} gamma={}", seconds_text(net.alpha_s),
                              per_byte(net.beta_s_per_B, "0 (wire time not modelled)"),
                              per_byte(net.gamma_s_per_B, "0 (reductions cost nothing)"));
  if (net.overhead_s > 0) s += fmt::format(" o={}", seconds_text(net.overhead_s));
  if (net.ranks_per_node > 0)
    s += fmt::format(" ranks-per-node={} intra-alpha={} intra-beta={}/B", net.ranks_per_node,
                     seconds_text(net.intra_alpha_s), seconds_text(net.intra_beta_s_per_B));
  if (net.network_gap_s >= 0) s += fmt::format(" network-gap={}", seconds_text(net.network_gap_s));
  if (net.skew_s > 0) s += fmt::format(" skew={}", seconds_text(net.skew_s));
  if (net.noise_s > 0) s += fmt::format(" noise={}", seconds_text(net.noise_s));
  if (net.skew_s > 0 || net.noise_s > 0) s += fmt::format(" seed={}", net.seed);
  if (net.round_synchronous) s += " round-synchronous";
  return s;
}

}  // namespace cb::sim
