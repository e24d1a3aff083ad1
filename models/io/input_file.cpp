#include "models/io/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "algorithms/types.hpp"

namespace cb::io {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string mib(std::size_t bytes) {
  return bytes >= (std::size_t{1} << 20) ? fmt::format("{} MiB", bytes >> 20)
                                         : fmt::format("{} bytes", bytes);
}

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_file(const std::string& path, std::string_view what, InputLimits limits) {
  const std::string name = what.empty() ? path : fmt::format("{} {}", what, path);
  if (path.empty())
    throw UsageError(fmt::format("{}: empty file name (give a file)",
                                 what.empty() ? std::string_view("input") : what));
  // O_NONBLOCK: opening a FIFO nobody writes must not block; the check
  // below refuses it anyway. Regular files ignore the flag.
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) throw UsageError(fmt::format("cannot read {}: {}", name, std::strerror(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw UsageError(fmt::format("cannot read {}: {}", name, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw UsageError(fmt::format("cannot read {}: it is {}; collbench reads only regular files",
                                 name, kind_of(st.st_mode)));
  const auto too_big = [&] {
    return UsageError(fmt::format("cannot read {}: larger than {} (collbench reads input files "
                                  "of at most {})",
                                  name, mib(limits.max_bytes), mib(limits.max_bytes)));
  };
  if (static_cast<std::uint64_t>(st.st_size) > limits.max_bytes) throw too_big();
  // Read up to one byte past the limit: st_size may lie (/proc, a file
  // still growing) and the limit must hold whatever it says.
  std::string text;
  text.resize(std::min<std::size_t>(static_cast<std::size_t>(st.st_size), limits.max_bytes) + 1);
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() > limits.max_bytes) throw too_big();
      text.resize(std::min(text.size() * 2 + 4096, limits.max_bytes + 1));
    }
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UsageError(fmt::format("cannot read {}: {}", name, std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  if (got > limits.max_bytes) throw too_big();
  if (limits.max_line > 0) {
    std::size_t line = 1, start = 0;
    for (;;) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      if (end - start > limits.max_line)
        throw UsageError(fmt::format("cannot read {}: line {} is longer than {} (not a text file "
                                     "collbench wrote?)",
                                     name, line, mib(limits.max_line)));
      if (end >= text.size()) break;
      start = end + 1;
      ++line;
    }
  }
  return text;
}

}  // namespace cb::io
