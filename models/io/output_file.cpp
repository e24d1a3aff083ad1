#include "models/io/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "algorithms/types.hpp"

namespace cb::io {
namespace {

// What a non-regular file is, for the refusal message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string parent_of(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() && !p.parent_path().empty() ? p.parent_path().string() : ".";
}

// A name nobody can guess in advance, so a planted file cannot be in the way.
std::string random_suffix() {
  unsigned char bytes[8] = {};
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw WriteError(fmt::format("getrandom failed: {}", std::strerror(errno)));
    got += static_cast<std::size_t>(n);
  }
  std::string out;
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

// Refuses `path` when it exists as anything but a regular file.
void require_regular_or_absent(const std::string& path, std::string_view flag) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (!S_ISREG(st.st_mode))
    throw WriteError(fmt::format("cannot write {} '{}': it is {}; collbench writes only regular "
                                 "files (use - for standard output)",
                                 flag, path, kind_of(st.st_mode)));
}

}  // namespace

void check_output_path(const std::string& path, std::string_view flag) {
  if (is_stdout(path)) return;
  if (path.empty())
    throw UsageError(fmt::format("empty file name for {} (give a file, or - for standard output)",
                                 flag));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw UsageError(fmt::format("cannot write {} '{}': it is {}; collbench writes only regular "
                                 "files (use - for standard output)",
                                 flag, path, kind_of(st.st_mode)));
  const std::string dir = parent_of(path);
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0)
    throw UsageError(fmt::format("cannot write {} '{}': directory '{}': {} (collbench does not "
                                 "create it)",
                                 flag, path, dir, std::strerror(errno)));
  if (!S_ISDIR(dst.st_mode))
    throw UsageError(
        fmt::format("cannot write {} '{}': '{}' is not a directory", flag, path, dir));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("cannot write {} '{}': directory '{}': {}", flag, path, dir,
                                 std::strerror(errno)));
}

OutputFile::OutputFile(std::string path, std::string flag, bool keep_on_failure)
    : path_(std::move(path)), flag_(std::move(flag)), keep_on_failure_(keep_on_failure) {
  if (to_stdout()) {
    current_ = "standard output";
    return;
  }
  check_output_path(path_, flag_);
  current_ = fmt::format("{}.tmp.{}", path_, random_suffix());
  // O_EXCL|O_NOFOLLOW: never open something that is already there, least of
  // all through a link; 0666 lets the umask decide, as for any new file.
  fd_ = ::open(current_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd_ < 0)
    throw WriteError(
        fmt::format("cannot create {} file '{}': {}", flag_, current_, std::strerror(errno)));
  // A file replaced keeps its permissions: results the user made private
  // (0600) must not become readable by all (0644) when a run rewrites them.
  struct stat old {};
  if (::lstat(path_.c_str(), &old) == 0 && S_ISREG(old.st_mode) &&
      ::fchmod(fd_, old.st_mode & 07777) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    ::unlink(current_.c_str());
    throw WriteError(fmt::format("cannot give {} file '{}' the mode of '{}': {}", flag_, current_,
                                 path_, std::strerror(err)));
  }
}

OutputFile::~OutputFile() {
  if (done_ || to_stdout()) return;
  if (fd_ >= 0) ::close(fd_);
  // A temporary never shown under its visible name is always removed.
  if (!keep_on_failure_ || !shown_) ::unlink(current_.c_str());
}

void OutputFile::write(std::string_view text) {
  if (to_stdout()) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw WriteError(fmt::format("writing {} to standard output failed: {}", flag_,
                                   std::strerror(errno)));
    return;
  }
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw WriteError(fmt::format("writing {} '{}' failed: {}", flag_, current_,
                                   n < 0 ? std::strerror(errno) : "nothing written"));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void OutputFile::rename_to(const std::string& dest) {
  require_regular_or_absent(dest, flag_);
  if (std::rename(current_.c_str(), dest.c_str()) != 0)
    throw WriteError(fmt::format("cannot rename '{}' to '{}': {}", current_, dest,
                                 std::strerror(errno)));
  current_ = dest;
}

void OutputFile::show_as(std::string_view suffix) {
  if (to_stdout()) return;
  rename_to(path_ + std::string(suffix));
  shown_ = true;
}

void OutputFile::close_checked() {
  const int fd = fd_;
  fd_ = -1;
  // fsync: the rename that follows must not publish a file whose data a
  // crash could still lose. EINVAL: a file system without fsync.
  const bool synced = ::fsync(fd) == 0 || errno == EINVAL;
  const int sync_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!synced || !closed)
    throw WriteError(fmt::format("writing {} '{}' failed: {}", flag_, current_,
                                 std::strerror(synced ? errno : sync_errno)));
}

void OutputFile::commit() {
  if (done_) return;
  if (to_stdout()) {
    done_ = true;
    check_stdout();
    return;
  }
  close_checked();
  rename_to(path_);
  done_ = true;
}

void OutputFile::keep() {
  if (done_) return;
  done_ = true;
  if (to_stdout()) return;
  close_checked();
}

void write_whole_file(const std::string& path, std::string_view flag, std::string_view text) {
  OutputFile f(path, std::string(flag), false);
  f.write(text);
  f.commit();
}

void rethrow_print_error(const std::system_error& e, std::string_view stream) {
  if (std::string_view(e.what()).rfind("cannot write to file", 0) == 0)
    throw WriteError(fmt::format("writing to {} failed: {}", stream, e.code().message()));
  throw e;
}

void check_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno;
    std::clearerr(stdout);
    throw WriteError(fmt::format("writing to standard output failed: {}",
                                 err != 0 ? std::strerror(err) : "I/O error"));
  }
}

}  // namespace cb::io
