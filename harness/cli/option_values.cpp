#include "harness/cli/option_values.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

namespace cb {
namespace {

// "INT", "UINT", "FLOAT", "TEXT": CLI11's type name without validator notes.
std::string base_type(const CLI::Option& opt) {
  std::string t = opt.get_type_name();
  const std::size_t cut = t.find_first_of(": ");
  return cut == std::string::npos ? t : t.substr(0, cut);
}

template <class T>
bool whole_number(const std::string& s) {
  if (s.empty() || s.front() == '+') return false;
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

bool real_number(const std::string& s) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front()))) return false;
  errno = 0;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// The check for one option; CLI11 prefixes its message with the option's name.
CLI::Validator value_check(const std::string& type, const std::string& command,
                           const std::string& name) {
  const std::string help = fmt::format("see collbench {} --help", command);
  const bool file = name == "--out" || name == "--csv" || name == "--json" ||
                    name == "--arrival-log";
  // These are checked against their list by the command, whose one line names
  // every accepted word ("--start '' (valid: barrier, window)").
  const bool listed = name == "--start" || name == "--wait" || name == "--placement" ||
                      name == "--transport";
  return CLI::Validator(
      [type, help, file, listed, name](std::string& value) -> std::string {
        if (value.empty() && listed) return {};
        if (value.empty() && file)
          return fmt::format("empty file name for {} (accepted: a file name; {})", name, help);
        if (value.empty())
          return fmt::format("the value is empty (accepted: {}; {})",
                             type == "INT" || type == "UINT" ? "a whole number"
                             : type == "FLOAT"               ? "a number"
                                                             : "a non-empty value",
                             help);
        if (type == "INT" && !whole_number<std::int32_t>(value))
          return fmt::format("'{}' is not a whole number from {} to {} (accepted: decimal digits; "
                             "{})",
                             value, std::numeric_limits<std::int32_t>::min(),
                             std::numeric_limits<std::int32_t>::max(), help);
        if (type == "UINT" && !whole_number<std::uint64_t>(value))
          return fmt::format("'{}' is not a whole number from 0 to {} (accepted: decimal digits "
                             "without a sign; {})",
                             value, std::numeric_limits<std::uint64_t>::max(), help);
        if (type == "FLOAT" && !real_number(value))
          return fmt::format("'{}' is not a number (accepted: a decimal number such as 0.5 or "
                             "1e-3; {})",
                             value, help);
        return {};
      },
      "", "");
}

}  // namespace

void add_value_checks(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    for (CLI::Option* opt : sub->get_options()) {
      if (opt->get_type_size() == 0) continue;  // a flag (--quiet): no value
      opt->check(value_check(base_type(*opt), sub->get_name(), opt->get_name()));
    }
  }
}

std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  const std::string generic =
      fmt::format("{} (see collbench --help, or collbench SUBCOMMAND --help)", what);
  // CLI11: "--calibration: 1 required TEXT missing".
  const std::size_t colon = what.find(':');
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) == nullptr || colon == std::string::npos ||
      what.find("required", colon) == std::string::npos)
    return generic;
  const std::string name = what.substr(0, colon);
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!sub->parsed()) continue;
    const CLI::Option* opt = sub->get_option_no_throw(name);
    if (opt == nullptr) continue;
    return fmt::format("{} needs a value (accepted: {}; see collbench {} --help)", name,
                       opt->get_description(), sub->get_name());
  }
  return generic;
}

}  // namespace cb
