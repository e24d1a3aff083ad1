// Input files, read with bounds: a path that names /dev/zero, a FIFO, a
// directory or a multi-gigabyte file must give one line and exit 2, never
// grow until bad_alloc (or block for ever on a FIFO nobody writes).
//
// Every file collbench reads because a user named it — results and
// calibration CSVs (`fit`, `compare`, `predict --params`, `--resume`), the
// selection JSON and COLLBENCH_PARAMS of the PMPI library — goes through
// read_input_file. The limits are documented in docs/reliability-cli.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cb::io {

// The largest file read (bytes): 256 MiB, some 800,000 result rows, far
// above any sweep or study collbench writes.
inline constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;
// The longest line (bytes, newline excluded): 1 MiB. A result row is a few
// hundred bytes; a longer "line" is a binary file or a file that lost its
// newlines, and the text parsers are not built for it.
inline constexpr std::size_t kMaxInputLine = std::size_t{1} << 20;

struct InputLimits {
  std::size_t max_bytes = kMaxInputBytes;
  std::size_t max_line = kMaxInputLine;  // 0: no line limit (a binary file)
};

// Reads the whole of `path`. Throws UsageError, one line naming `what`
// (e.g. "--params", or "" for the bare path) and the path, when the file
// cannot be opened, is not a regular file (a directory, a device such as
// /dev/zero, a FIFO, a socket; a symlink to a regular file is fine), is
// larger than limits.max_bytes, or has a line longer than limits.max_line.
std::string read_input_file(const std::string& path, std::string_view what = {},
                            InputLimits limits = {});

}  // namespace cb::io
