#!/usr/bin/python3
"""plot.py and report.py on hostile outputs and inputs: a planted symbolic link is
refused and left alone, a device as --out is refused, a full disk leaves no
truncated file, and a binary CSV, NaN medians, ranks=1e300 or a 128 KiB field
are one line on stderr. Exit statuses as the C++ CLI's: 2 bad input, 4 a failed
write (harness/cli/commands.hpp). Runs the scripts as a user does, under the
Python that has matplotlib."""
import csv
import errno
import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)

import output_file  # noqa: E402


def run(script, *args):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args],
                       capture_output=True, text=True)
    return p.returncode, p.stderr


def fixture(d):
    subprocess.run([sys.executable, os.path.join(HERE, "make_plot_fixture.py"), d], check=True)


def rewrite_sweep(d, change):
    """Applies change(rows) to d/sweep-mpi.csv."""
    path = os.path.join(d, "sweep-mpi.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    change(rows)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = os.path.join(self.tmp.name, "study")
        fixture(self.d)

    def tearDown(self):
        self.tmp.cleanup()

    def one_line(self, status, err, want_status, *fragments):
        self.assertEqual(status, want_status, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertNotIn("Traceback", err)
        for f in fragments:
            self.assertIn(f, err)


class Outputs(Case):
    def test_a_planted_link_is_refused_and_its_target_untouched(self):
        victim = os.path.join(self.tmp.name, "victim")
        with open(victim, "w") as f:
            f.write("victim\n")
        other = os.path.join(self.tmp.name, "out")
        for out, args in ((os.path.join(self.d, "plots"), [self.d]),
                          (other, [self.d, "--out", other])):
            os.makedirs(out, exist_ok=True)
            os.symlink(victim, os.path.join(out, "busbw-mpi.png"))
            status, err = run("plot.py", *args)
            self.one_line(status, err, 2, "busbw-mpi.png", "symbolic link")
            self.assertTrue(os.path.islink(os.path.join(out, "busbw-mpi.png")))
        os.symlink(victim, os.path.join(self.d, "report.md"))
        status, err = run("report.py", self.d)
        self.one_line(status, err, 2, "report.md", "symbolic link")
        with open(victim) as f:
            self.assertEqual(f.read(), "victim\n")

    def test_a_device_as_out_is_refused(self):
        status, err = run("plot.py", self.d, "--out", "/dev/null")
        self.one_line(status, err, 2, "/dev/null", "not a directory")

    def test_a_full_disk_leaves_no_truncated_file(self):
        out = os.path.join(self.tmp.name, "full")
        os.makedirs(out)
        target = os.path.join(out, "report.md")
        with open(target, "w") as f:
            f.write("the old report\n")
        os.chmod(target, 0o600)
        full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        with mock.patch.object(output_file.os, "fsync", side_effect=full):
            with self.assertRaises(output_file.WriteFailed) as e:
                output_file.write_atomically(target, lambda f: f.write("new"), binary=False)
        self.assertIn("No space left on device", str(e.exception))
        self.assertEqual(os.listdir(out), ["report.md"])  # no temporary left
        with open(target) as f:
            self.assertEqual(f.read(), "the old report\n")
        output_file.write_atomically(target, lambda f: f.write("new"), binary=False)
        self.assertEqual(os.stat(target).st_mode & 0o777, 0o600)  # the mode is kept

    def test_plot_on_a_full_disk_exits_4_with_nothing_written(self):
        import plot
        import script_main
        out = os.path.join(self.tmp.name, "p")
        err = io.StringIO()
        full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        with mock.patch.object(output_file.os, "fsync", side_effect=full), redirect_stderr(err):
            status = script_main.run("plot.py", plot.main, [self.d, "--out", out])
        self.one_line(status, err.getvalue(), 4, "No space left on device")
        self.assertEqual(os.listdir(out), [])

    def test_a_read_only_file_system_is_refused(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to mount a read-only tmpfs")
        mnt = os.path.join(self.tmp.name, "ro")
        os.makedirs(mnt)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", mnt],
                          capture_output=True).returncode != 0:
            self.skipTest("mount -t tmpfs is not allowed here")
        try:
            status, err = run("plot.py", self.d, "--out", mnt)
            self.one_line(status, err, 2, "read-only file system")
        finally:
            subprocess.run(["umount", mnt], check=True)


class Inputs(Case):
    def both(self, *fragments):
        for script in ("plot.py", "report.py"):
            status, err = run(script, self.d)
            self.one_line(status, err, 2, *fragments)
        self.assertFalse(os.path.exists(os.path.join(self.d, "report.md")))

    def test_a_binary_csv(self):
        with open(os.path.join(self.d, "sweep-mpi.csv"), "wb") as f:
            f.write(bytes(range(256)) * 16)
        self.both("sweep-mpi.csv", "not a CSV file")

    def test_all_nan_medians(self):
        rewrite_sweep(self.d, lambda rows: [r.update(time_median_us="nan") for r in rows])
        self.both("sweep-mpi.csv:2", "time_median_us holds 'nan'")

    def test_ranks_1e300(self):
        rewrite_sweep(self.d, lambda rows: rows[5].update(ranks="1e300"))
        self.both("sweep-mpi.csv:7", "ranks holds '1e300'")

    def test_a_file_cut_mid_row(self):
        path = os.path.join(self.d, "sweep-mpi.csv")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:len(text) - 40])  # the last row loses its end and its newline
        self.both("sweep-mpi.csv", "cut short")

    def test_a_128_kib_field(self):
        rewrite_sweep(self.d, lambda rows: rows[0].update(datatype="x" * (128 << 10)))
        self.both("sweep-mpi.csv:2", "131072 characters")
        # One byte more is over the csv module's own limit.
        rewrite_sweep(self.d, lambda rows: rows[0].update(datatype="x" * ((128 << 10) + 1)))
        self.both("sweep-mpi.csv", "field larger than field limit")

    def test_a_malformed_winners_csv(self):
        with open(os.path.join(self.d, "winners.csv"), "a") as f:
            f.write("mpi,allreduce,fp32,4,-5,ring,,measured,1,2\n")
        status, err = run("plot.py", self.d)
        self.one_line(status, err, 2, "winners.csv", "bytes holds '-5'")


if __name__ == "__main__":
    unittest.main()
