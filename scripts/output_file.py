"""Writing the scripts' outputs (PNGs, report.md) as the C++ output_file module
(models/io/output_file.hpp) writes collbench's: safe in a shared directory.

- Only regular files are written: a destination that is a symbolic link, a
  directory, a device, a FIFO or a socket is refused (BadOutput, exit 2), so a
  planted link can never redirect a write.
- Data goes into a new temporary file beside the destination, created with
  O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, and is renamed over
  it once complete and flushed to disk: the destination only ever exists
  whole, and a full disk leaves no truncated file behind (WriteFailed, exit 4).
- An existing destination keeps its permission bits (a 0600 report stays 0600).
"""
import os
import secrets
import stat

# Exit statuses shared with the C++ CLI (harness/cli/commands.hpp).
EXIT_BAD_INPUT = 2
EXIT_WRITE_FAILED = 4


class BadOutput(Exception):
    """An output path refused before anything is written (exit 2)."""


class WriteFailed(Exception):
    """A write that failed after the path was accepted: full disk, I/O error (exit 4)."""


def kind_of(mode):
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def prepare_directory(path, flag="--out"):
    """Makes `path` an existing, writable directory, or raises BadOutput naming why
    (it is a file or a device such as /dev/null, or it cannot be created or written)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        try:
            os.makedirs(path)
        except OSError as e:
            raise BadOutput(f"cannot write {flag} '{path}': cannot create the directory: "
                            f"{e.strerror}")
        return
    except OSError as e:
        raise BadOutput(f"cannot write {flag} '{path}': {e.strerror}")
    if not stat.S_ISDIR(st.st_mode):
        raise BadOutput(f"cannot write {flag} '{path}': it is {kind_of(st.st_mode)}, not a "
                        "directory")
    if not os.access(path, os.W_OK | os.X_OK):
        why = "read-only file system" if os.statvfs(path).f_flag & os.ST_RDONLY else \
            "permission denied"
        raise BadOutput(f"cannot write {flag} '{path}': {why}")


def check_destination(path):
    """BadOutput when `path` exists as anything but a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise BadOutput(f"cannot write '{path}': it is {kind_of(st.st_mode)}; collbench writes "
                        "only regular files (remove it first)")
    return st


def write_atomically(path, fill, binary=True):
    """Calls fill(file) on a new temporary file beside `path`, then renames it over
    `path`. BadOutput for a destination that is not a regular file, WriteFailed for
    any failure while writing (the temporary is removed)."""
    old = check_destination(path)
    directory = os.path.dirname(path) or "."
    tmp = os.path.join(directory, f".{os.path.basename(path)}.tmp.{secrets.token_hex(8)}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o666)
    except OSError as e:
        raise WriteFailed(f"cannot create a file in '{directory}' for '{path}': {e.strerror}")
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        if old is not None:
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
        check_destination(path)  # a link planted while we wrote is refused too
        os.replace(tmp, path)
    except BadOutput:
        remove_quietly(tmp)
        raise
    except OSError as e:
        remove_quietly(tmp)
        raise WriteFailed(f"writing '{path}' failed: {e.strerror or e}")
    except BaseException:
        remove_quietly(tmp)
        raise


def remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def remove_output(path):
    """Removes a stale output (a regular file only; a link is left alone and refused)."""
    if check_destination(path) is not None:
        try:
            os.unlink(path)
        except OSError as e:
            raise WriteFailed(f"cannot remove the stale '{path}': {e.strerror}")
