"""scripts/study.sh stops on the first signal and never trusts mpiexec's exit
status alone (issue 31, item 1).

Each case runs `study.sh --quick` in a scratch tree (a copy of scripts/, the
build directory linked in, an empty results/ whose `latest` points at an
earlier run), in its own session as a terminal's job would be:

- SIGINT, SIGTERM, SIGHUP to the study's process group while calibrate runs:
  the study ends within 60 s with 128 + signal, prints the interrupted line
  and the resume command, leaves no process behind and results/latest as it
  was. (Before, the study went on after calibrate's "interrupted" line and
  could end with exit 0 and latest moved.)
- an mpiexec that exits 0 and measures nothing (MPICH 4.0.2's mpiexec after
  a signal): the study stops at the first stage, naming the missing file,
  with exit status 1, and latest untouched.

Standard library only. Env: CB_SOURCE_DIR, CB_BUILD_DIR.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

SOURCE = os.environ["CB_SOURCE_DIR"]
BUILD = os.environ["CB_BUILD_DIR"]


def session_processes(sid):
    """Pids of the processes whose session is `sid`."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] != "Z" and int(fields[3]) == sid:
            pids.append(int(name))
    return pids


def kill_session(sid):
    for pid in session_processes(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def default_signals():
    # A shell started from a script inherits SIGINT ignored; a terminal's job
    # does not, and the study is meant for a terminal.
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


class Study(unittest.TestCase):
    def setUp(self):
        self.tree = tempfile.mkdtemp(prefix="collbench-study-")
        shutil.copytree(os.path.join(SOURCE, "scripts"), os.path.join(self.tree, "scripts"))
        os.symlink(BUILD, os.path.join(self.tree, "build"))
        self.results = os.path.join(self.tree, "results")
        os.makedirs(os.path.join(self.results, "earlier-run"))
        os.symlink("earlier-run", os.path.join(self.results, "latest"))
        self.log = os.path.join(self.tree, "study.log")
        self.proc = None

    def tearDown(self):
        if self.proc is not None and self.proc.poll() is None:
            kill_session(self.proc.pid)
            self.proc.wait()
        if self.proc is not None:
            kill_session(self.proc.pid)
            self.log_file.close()
        shutil.rmtree(self.tree, ignore_errors=True)

    def start(self, env_extra=None):
        self.log_file = open(self.log, "w")
        env = dict(os.environ, CB_BUILD_DIR=os.path.join(self.tree, "build"), **(env_extra or {}))
        self.proc = subprocess.Popen(
            ["bash", os.path.join(self.tree, "scripts", "study.sh"), "--quick"],
            stdin=subprocess.DEVNULL, stdout=self.log_file, stderr=subprocess.STDOUT,
            env=env, start_new_session=True, preexec_fn=default_signals)

    def text(self):
        with open(self.log) as f:
            return f.read()

    def wait(self, limit_s):
        """The exit status, or None when the study is still running after limit_s."""
        try:
            return self.proc.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            return None

    def calibrate_running(self):
        """Whether a collbench calibrate of this tree's study runs now."""
        for pid in session_processes(self.proc.pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if b"calibrate" in argv and any(a.endswith(b"/harness/collbench") for a in argv):
                return True
        return False

    def assert_latest_untouched(self):
        self.assertEqual(os.readlink(os.path.join(self.results, "latest")), "earlier-run")

    def interrupt_during_calibrate(self, sig):
        self.start()
        deadline = time.monotonic() + 120
        while not self.calibrate_running():
            self.assertIsNone(self.proc.poll(), self.text())
            self.assertLess(time.monotonic(), deadline, "calibrate never started:\n" + self.text())
            time.sleep(0.1)
        time.sleep(0.5)  # inside calibrate's measurements, past MPI's start-up
        os.killpg(self.proc.pid, sig)  # the study's group, as a terminal sends it
        rc = self.wait(60)
        out = self.text()
        self.assertIsNotNone(rc, "the study did not stop within 60 s of signal %d:\n%s" % (sig, out))
        self.assertEqual(rc, 128 + sig, out)
        self.assertIn(f"interrupted (signal {sig})", out)
        self.assertIn("resume with: bash scripts/study.sh --resume results/", out)
        self.assertNotIn("measured sweep over MPI", out)  # no later stage began
        self.assert_latest_untouched()
        time.sleep(1)
        self.assertEqual(session_processes(self.proc.pid), [],
                         "processes left after the study ended:\n" + out)

    def test_sigint_stops_the_study(self):
        self.interrupt_during_calibrate(signal.SIGINT)

    def test_sigterm_stops_the_study(self):
        self.interrupt_during_calibrate(signal.SIGTERM)

    def test_sighup_stops_the_study(self):
        self.interrupt_during_calibrate(signal.SIGHUP)

    def test_mpiexec_status_zero_without_output_is_a_failure(self):
        fake = os.path.join(self.tree, "fake-bin")
        os.makedirs(fake)
        with open(os.path.join(fake, "mpiexec"), "w") as f:
            f.write("#!/bin/sh\n# MPICH's mpiexec after a signal: status 0, nothing done\nexit 0\n")
        os.chmod(os.path.join(fake, "mpiexec"), 0o755)
        self.start({"PATH": fake + os.pathsep + os.environ["PATH"]})
        rc = self.wait(120)
        out = self.text()
        self.assertIsNotNone(rc, "the study did not end within 120 s:\n" + out)
        self.assertEqual(rc, 1, out)
        self.assertIn("calibration.csv is missing or empty", out)
        self.assertNotIn("measured sweep over MPI", out)
        self.assert_latest_untouched()


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
