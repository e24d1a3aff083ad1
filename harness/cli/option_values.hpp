// Every option value of every command, checked as the string the user typed
// before CLI11 converts it. CLI11 alone took an empty value ('-n ""') as the
// default, wrapped "--seed -1" to 2^64 - 1, and answered "1e300" for an
// integer with "Could not convert: --iters = 1e300", which says neither what
// was wrong nor what would do. The commands still range-check the numbers.
#pragma once

#include <string>

namespace CLI {
class App;
class ParseError;
}

namespace cb {

// Adds to each option of `app`'s subcommands that takes a value (flags
// excepted) a check that refuses, with one line naming the option, the value
// and what is accepted (CLI11's ValidationError, exit 2):
// - an empty value, for every option and positional argument;
// - for INT options, anything but a decimal integer of at most 32 bits;
// - for UINT options, anything but a decimal integer of at most 64 bits
//   without sign;
// - for FLOAT options, anything strtod does not read whole (nan and inf are
//   numbers here; the commands say which range they accept).
void add_value_checks(CLI::App& app);

// The one line for a CLI11 parse error. An option typed without its value
// ("fit --calibration" at the end of the line) gets its own description as
// what is accepted, instead of CLI11's "1 required TEXT missing".
std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& e);

}  // namespace cb
