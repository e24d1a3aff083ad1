// CB_CHECK guards internal invariants (a bug in collbench, not bad user input,
// which is reported with cb::UsageError). It throws cb::InternalError carrying
// file:line so tests can observe it and the CLI can report it.
#pragma once

#include <fmt/format.h>

#include <stdexcept>

namespace cb {

struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

}  // namespace cb

#define CB_CHECK(cond, ...)                                                         \
  do {                                                                              \
    if (!(cond))                                                                    \
      throw ::cb::InternalError(::fmt::format("{}:{}: check '{}' failed: {}",       \
                                              __FILE__, __LINE__, #cond,            \
                                              ::fmt::format(__VA_ARGS__)));          \
  } while (0)
