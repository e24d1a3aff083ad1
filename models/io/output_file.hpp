// Output files, safe to write as root in a shared directory.
//
// - Only regular files are written: a path that names a directory, a device
//   node, a FIFO, a socket or a symbolic link is refused (so `--csv /dev/full`
//   can never turn a device into a file, and a planted symlink can never
//   redirect a write).
// - Data goes first into a new temporary file beside the target, created with
//   O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, then is renamed
//   over the target once complete: PATH only ever exists whole. A PATH that
//   exists already keeps its permission bits (a 0600 file stays 0600).
// - Every failed write (a full disk, an I/O error, a closed stdout) throws
//   WriteError, whose what() is one line naming the file and the reason.
// - "-" means standard output: written directly, no temporary.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace cb::io {

// A write that failed after the path was accepted (ENOSPC, EIO, EPIPE...).
struct WriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline bool is_stdout(std::string_view path) { return path == "-"; }

// Checks before any work starts that `path` can become a regular file:
// not empty, not an existing directory, device, FIFO, socket or symlink, and
// its directory exists and is writable. `flag` names the option in the
// message ("--csv"). "-" passes. Throws UsageError (one line).
void check_output_path(const std::string& path, std::string_view flag);

// One output file being written.
class OutputFile {
 public:
  // Opens a new temporary file beside `path` ("<path>.tmp.<random>").
  // keep_on_failure: what the destructor does when neither commit() nor
  // keep() was called (an exception) and the file was shown (show_as): leave
  // it where it is (streamed results: every finished row stays) or remove it.
  // A temporary that was never shown is always removed.
  OutputFile(std::string path, std::string flag, bool keep_on_failure);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Appends `text` and flushes it to the kernel: after return, a killed
  // process leaves it in the file. Throws WriteError.
  void write(std::string_view text);
  // Renames the file being written to `path + suffix` (e.g. ".partial"), where
  // it stays visible while it grows. An existing regular file of that name is
  // replaced; anything else there is refused (WriteError).
  void show_as(std::string_view suffix);
  // Completes the file: fsync, close and rename over `path`.
  void commit();
  // Closes the file and leaves it where it is now (an interrupted run).
  void keep();

  // Where the data is now (the temporary, path+suffix, or path).
  const std::string& current_path() const { return current_; }
  bool to_stdout() const { return is_stdout(path_); }

 private:
  void close_checked();
  void rename_to(const std::string& dest);

  std::string path_, flag_, current_;
  int fd_ = -1;
  bool keep_on_failure_ = false;
  bool shown_ = false;
  bool done_ = false;
};

// Writes `text` to `path` atomically (temporary + rename); "-" = stdout.
void write_whole_file(const std::string& path, std::string_view flag, std::string_view text);

// fmt::print(FILE*, ...) reports a failed write as std::system_error
// ("cannot write to file: ..."): turns that into a WriteError for `stream`
// ("standard output"), and rethrows anything else unchanged.
[[noreturn]] void rethrow_print_error(const std::system_error& e, std::string_view stream);

// Flushes stdout and throws WriteError when anything written to it failed
// (`collbench list > /dev/full`).
void check_stdout();

}  // namespace cb::io
