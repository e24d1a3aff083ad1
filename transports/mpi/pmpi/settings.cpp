#include "transports/mpi/pmpi/settings.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

namespace cb::pmpi {
namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t h) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

std::array<std::uint64_t, kSettingNames.size()> setting_hashes() {
  std::array<std::uint64_t, kSettingNames.size()> out{};
  for (std::size_t i = 0; i < kSettingNames.size(); ++i) {
    const char* v = std::getenv(kSettingNames[i]);
    // A leading byte tells "unset" from "set to the empty string".
    const std::uint64_t seed = fnv1a(v ? "=" : "-", 0xcbf29ce484222325ull);
    out[i] = fnv1a(v ? v : "", seed);
  }
  return out;
}

std::string describe_setting(std::size_t index) {
  const char* v = std::getenv(kSettingNames[index]);
  return v ? fmt::format("{}={}", kSettingNames[index], v)
           : fmt::format("{} unset", kSettingNames[index]);
}

}  // namespace cb::pmpi
