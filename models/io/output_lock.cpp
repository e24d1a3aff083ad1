#include "models/io/output_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "algorithms/types.hpp"
#include "models/io/output_file.hpp"

namespace cb::io {

bool same_output(const std::string& a, const std::string& b) {
  if (is_stdout(a) || is_stdout(b)) return false;
  namespace fs = std::filesystem;
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
  const fs::path cb_path = fs::weakly_canonical(fs::absolute(b, eb), eb);
  if (!ea && !eb && ca == cb_path) return true;
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

OutputLock::~OutputLock() {
  // Unlinked while still locked: a process that opened the old file and
  // waits for it sees, once it gets the lock, that the name is gone (below).
  for (const Held& h : held_) {
    ::unlink(h.lock_path.c_str());
    ::close(h.fd);
  }
}

void OutputLock::add(const std::string& path, std::string_view flag) {
  if (is_stdout(path)) return;
  const std::string lock_path = path + ".lock";
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd =
        ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0)
      throw UsageError(fmt::format("cannot lock {} '{}': {}: {}", flag, path, lock_path,
                                   errno == ELOOP ? "it is a symbolic link"
                                                  : std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw UsageError(
          fmt::format("cannot lock {} '{}': {} is not a regular file", flag, path, lock_path));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EINTR) continue;
      if (err == EWOULDBLOCK)
        throw UsageError(fmt::format(
            "{} '{}' is being written by another collbench (it holds {}); wait for it to "
            "finish or write another file",
            flag, path, lock_path));
      throw UsageError(
          fmt::format("cannot lock {} '{}': {}: {}", flag, path, lock_path, std::strerror(err)));
    }
    // The holder we waited for may have removed the name meanwhile: then
    // this lock is on a file nobody else will open; take the new one.
    struct stat now {};
    if (::lstat(lock_path.c_str(), &now) == 0 && now.st_dev == st.st_dev &&
        now.st_ino == st.st_ino) {
      held_.push_back({lock_path, fd});
      return;
    }
    ::close(fd);
  }
  throw UsageError(fmt::format("cannot lock {} '{}': {} keeps changing", flag, path, lock_path));
}

}  // namespace cb::io
