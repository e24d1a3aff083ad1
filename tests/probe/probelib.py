"""The probe's machinery: start a command in its own process group under a
memory limit, act on it while it runs (signals, SIGSTOP), collect its exit
status, output, time and peak memory, and the checks every case shares."""
import dataclasses
import glob
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Callable, Optional

# Every process a case starts gets this address-space limit (the issue's
# "under a 4 GB limit"): an unbounded read or an unestimated allocation ends
# in bad_alloc or a kill instead of taking the machine.
MEMORY_LIMIT = 4 << 30
# Peak resident memory above this is a finding on its own.
RSS_LIMIT_KB = 1 << 20

# Lines collbench may add to any refusal that are not about the input: the
# single-rank launch hint and the busy-machine warning (it depends on who
# else uses the cores).
NOISE = ("collbench: running as a single rank", "collbench: warning: the machine is busy")


@dataclasses.dataclass
class Result:
    status: int  # exit status, or 128 + signal
    out: str
    err: str
    seconds: float
    maxrss_kb: int
    timed_out: bool
    acted_at: Optional[float] = None  # when `during` returned (a signal sent), monotonic

    def error_lines(self):
        return [l for l in self.err.splitlines() if l.strip() and not l.startswith(NOISE)]

    def after_action(self):
        """Seconds from the action (a signal) to the end."""
        if self.acted_at is None:
            return self.seconds
        return self.ended_at - self.acted_at


@dataclasses.dataclass
class Case:
    name: str
    # run(ctx, dir) -> list of problems (empty: the case behaved). `dir` is
    # the case's own empty scratch directory.
    run: Callable
    skip: str = ""
    # Cases of one process each, with nothing timed, may run side by side.
    parallel: bool = False


class Ctx:
    def __init__(self, root, build, scratch):
        self.root = root
        self.build = build
        self.scratch = scratch
        self.bin = os.path.join(build, "harness", "collbench")
        self.mpiexec = shutil.which("mpiexec") or ""
        self.pmpi_lib = os.path.join(build, "transports", "mpi", "pmpi", "libcollbench-pmpi.so")
        self.pmpi_app = os.path.join(build, "tests", "pmpi", "pmpi_fallback_app")
        self.testbed = os.path.join(root, "scripts", "testbed.sh")
        self.calibration = os.path.join(root, "tests", "models", "calibration-ipc.csv")
        self.is_root = os.geteuid() == 0
        self._fixtures = {}
        self._n = 0
        self._lock = threading.Lock()

    # ---- scratch ------------------------------------------------------------

    def case_dir(self):
        with self._lock:
            self._n += 1
            n = self._n
        d = os.path.join(self.scratch, f"c{n:04d}")
        os.makedirs(d)
        os.chmod(d, 0o777)
        return d

    def fixture(self, name, make):
        """A shared input made once (a results CSV, a fit directory); made
        before parallel cases start (Ctx.prepare)."""
        if name not in self._fixtures:
            d = os.path.join(self.scratch, "fixtures", name)
            os.makedirs(d, exist_ok=True)
            self._fixtures[name] = make(d)
        return self._fixtures[name]

    def cleanup(self):
        pass

    def run_case(self, case):
        if case.skip:
            return "skip", case.skip
        d = self.case_dir()
        try:
            problems = case.run(self, d)
        except Exception as e:  # a broken case is the probe's bug, reported as one
            problems = [f"probe error: {type(e).__name__}: {e}"]
        return ("MISBEHAVES", "; ".join(problems)) if problems else ("ok", "")

    # ---- running ------------------------------------------------------------

    def cb(self, *args, ranks=0):
        """argv of collbench ARGS, under `mpiexec -n RANKS` when ranks > 0."""
        argv = [self.mpiexec, "-n", str(ranks)] if ranks else []
        return argv + [self.bin, *args]

    def launch(self, argv, *, cwd=None, env=None, stdout=None, stdin=None, limit_s=30,
               during=None, as_nobody=False, fsize=None, memory=MEMORY_LIMIT):
        """Runs argv in a new process group; `during(proc)` runs while it does
        (it may sleep, poll and signal); the group is SIGKILLed at limit_s."""
        full_env = dict(os.environ)
        full_env.pop("COLLBENCH_EXIT_FILE", None)
        if env:
            for k, v in env.items():
                if v is None:
                    full_env.pop(k, None)
                else:
                    full_env[k] = v
        fd, err_path = tempfile.mkstemp(prefix="stderr-", dir=self.scratch)
        os.close(fd)
        if stdout:
            out_path = stdout
        else:
            fd, out_path = tempfile.mkstemp(prefix="stdout-", dir=self.scratch)
            os.close(fd)
        # Limits through wrappers, not preexec_fn (not safe with the
        # threads that run parallel cases): prlimit, setpriv, and sh to
        # ignore SIGXFSZ so that a file-size limit fails writes as a full
        # disk does (EFBIG) instead of killing.
        wrapped = ["prlimit", f"--as={memory}"]
        if fsize is not None:
            wrapped += [f"--fsize={fsize}"]
        wrapped += ["--"]
        if as_nobody:
            # HOME stays root's; matplotlib would warn that it cannot write there.
            full_env["MPLCONFIGDIR"] = tempfile.mkdtemp(prefix="mpl-", dir=self.scratch)
            os.chmod(full_env["MPLCONFIGDIR"], 0o777)
            wrapped += ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        if fsize is not None:
            wrapped += ["sh", "-c", 'trap "" XFSZ; exec "$@"', "sh"]
        with open(err_path, "wb") as err, open(out_path, "ab" if stdout else "wb") as out:
            stdin_f = open(stdin, "rb") if stdin else subprocess.DEVNULL
            start = time.monotonic()
            proc = subprocess.Popen(wrapped + list(argv), cwd=cwd, env=full_env, stdout=out,
                                    stderr=err, stdin=stdin_f, process_group=0)
            if stdin:
                stdin_f.close()
        proc.started = start
        acted_at = None
        timed_out = False
        try:
            if during:
                during(proc)
                acted_at = time.monotonic()
            status, rusage = self._wait(proc, start + limit_s)
            if status is None:
                timed_out = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                _, rc, rusage = os.wait4(proc.pid, 0)
                status = _exit_status(rc)
        finally:
            # Whatever the case left in the group (a stopped rank) goes.
            for sig in (signal.SIGCONT, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
        ended = time.monotonic()
        r = Result(status, _read(out_path) if not stdout else "", _read(err_path), ended - start,
                   rusage.ru_maxrss, timed_out, acted_at)
        os.unlink(err_path)
        if not stdout:
            os.unlink(out_path)
        r.ended_at = ended
        proc.returncode = status
        return r

    @staticmethod
    def _wait(proc, deadline):
        while True:
            pid, rc, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                return _exit_status(rc), rusage
            if time.monotonic() > deadline:
                return None, None
            time.sleep(0.01)

    # ---- helpers for `during` -------------------------------------------------

    def wait_for(self, predicate, limit_s=60, step=0.02):
        end = time.monotonic() + limit_s
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(step)
        return False

    def rank_pid(self, rank):
        """The pid of this binary's process whose PMI_RANK is `rank`."""
        want = os.path.realpath(self.bin)
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.path.realpath(os.readlink(f"/proc/{entry}/exe")) != want:
                    continue
                with open(f"/proc/{entry}/environ", "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            if f"PMI_RANK={rank}".encode() in env and _in_scratch(entry, self.scratch):
                return int(entry)
        return 0


def _in_scratch(pid, scratch):
    """Only the probe's own launches (their working directory or arguments
    name the scratch directory): other engineers run collbench too."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if scratch.encode() in f.read():
                return True
        return os.readlink(f"/proc/{pid}/cwd").startswith(scratch)
    except OSError:
        return False


def _exit_status(rc):
    return os.WEXITSTATUS(rc) if os.WIFEXITED(rc) else 128 + os.WTERMSIG(rc)


def _read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


# ---- the checks every case shares --------------------------------------------

def common_problems(r, *, limit_s=None):
    p = []
    if r.timed_out:
        p.append(f"still running after {r.seconds:.0f} s (killed)")
    elif limit_s is not None and r.seconds > limit_s:
        p.append(f"took {r.seconds:.1f} s (bound {limit_s} s)")
    both = r.out + r.err
    if "Traceback (most recent call last)" in both:
        p.append("Python traceback")
    if "internal error" in both:
        p.append("internal error: " + _first(both, "internal error"))
    if "bad_alloc" in both or "Cannot allocate memory" in both:
        p.append("out of memory under the 4 GiB limit")
    if r.maxrss_kb > RSS_LIMIT_KB:
        p.append(f"peak memory {r.maxrss_kb >> 10} MiB")
    return p


# Information lines a run prints before a write fails (the model it simulates).
INFO = ("collbench: sim:", "collbench: map:")


def refused(r, needles=(), status=2, limit_s=15, prefix="collbench"):
    """A refusal: `status`, exactly one error line from `prefix`, containing
    each of `needles` (a tuple member may itself be a tuple of alternatives)."""
    p = common_problems(r, limit_s=limit_s)
    if r.timed_out:
        return p
    if r.status != status:
        p.append(f"exit {r.status}, want {status}")
    lines = r.error_lines()
    if status == 4:
        lines = [l for l in lines if not l.startswith(INFO)]
    if len(lines) != 1:
        shown = " | ".join(lines[:3]) if lines else "(no stderr)"
        p.append(f"{len(lines)} stderr lines, want 1: {shown[:300]}")
    elif not lines[0].startswith(prefix if isinstance(prefix, tuple) else (prefix,)):
        p.append(f"line does not start with '{prefix}': {lines[0][:200]}")
    text = "\n".join(lines)
    for n in needles:
        alts = n if isinstance(n, tuple) else (n,)
        if not any(a in text for a in alts):
            p.append(f"line does not name '{alts[0]}': {text[:200]}")
    return p


def succeeded(r, limit_s=60):
    p = common_problems(r, limit_s=limit_s)
    if not r.timed_out and r.status != 0:
        p.append(f"exit {r.status}, want 0: {' | '.join(r.error_lines()[:2])[:300]}")
    return p


def leftovers(d, allowed=()):
    """Temporary, partial or lock files left in d that a refusal must not leave."""
    out = []
    for pattern in ("*.tmp*", "*.partial", "*.lock", ".*.tmp*", "*.partial.*"):
        for f in glob.glob(os.path.join(d, "**", pattern), recursive=True):
            if os.path.basename(f) not in allowed:
                out.append(os.path.relpath(f, d))
    return [f"left behind: {', '.join(sorted(set(out)))}"] if out else []


def written(d):
    """Anything a refusal left in its scratch directory d."""
    found = sorted(os.path.relpath(os.path.join(r, f), d)
                   for r, _, files in os.walk(d) for f in files)
    return [f"wrote: {', '.join(found[:5])}"] if found else []


def _first(text, needle):
    for line in text.splitlines():
        if needle in line:
            return line.strip()[:200]
    return ""


def write(path, data, mode="w"):
    with open(path, mode) as f:
        f.write(data)
    return path


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return None
