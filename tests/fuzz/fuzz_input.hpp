// Shared by the libFuzzer targets (fuzz_*.cpp). Each target feeds one input
// to one of collbench's readers; the only acceptable failure is a
// cb::UsageError (bad input reported in one line). Anything else, an
// InternalError, another exception, a sanitizer report, escapes and is a
// finding. The same targets also build without libFuzzer, linked with
// replay_main.cpp, so the normal test suite replays the committed corpus and
// every input that once crashed (tests/fuzz/README.md).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "algorithms/types.hpp"

namespace cb::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

template <class F>
void usage_errors_only(F&& f) {
  try {
    f();
  } catch (const UsageError&) {
  }
}

// Readers that take a path get the input through this file, one per process.
inline std::string as_file(std::string_view text, const char* suffix) {
  const std::string path =
      "/tmp/collbench-fuzz-" + std::to_string(::getpid()) + "-input" + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) __builtin_trap();
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), f) != text.size())
    __builtin_trap();
  std::fclose(f);
  return path;
}

}  // namespace cb::fuzz
