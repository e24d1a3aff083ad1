#!/usr/bin/python3
"""scripts/testbed/refine_sizes.py: which sizes the testbed study measures
again around each measured crossover.

Run by meson (suite scripts) with /usr/bin/python3 (by hand:
python3 tests/scripts/refine_sizes_test.py); standard library only. Builds a
sweep on the study's x4 grid with crossings whose CI intervals are known and
checks the printed `COLLECTIVE RANKS MIN MAX` lines.
"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "testbed", "refine_sizes.py")
GRID = [8] + [16 * 4 ** k for k in range(11)]  # 8 B, 16 B .. 4 MiB, 16 MiB


def sweep_rows(coll, p, ratio_at):
    """Rows of algorithms a and b where a's time is b's times ratio_at(size);
    a ratio of exactly 1 makes their 95% CIs (+-1%) overlap."""
    rows = []
    for s in GRID:
        b = 100.0 + s / 1000
        a = b * ratio_at(s)
        for algo, t in (("a", a), ("b", b)):
            rows.append({"collective": coll, "ranks": p, "bytes": s, "algorithm": algo,
                         "time_median_us": t, "ci_lo_us": t * 0.99, "ci_hi_us": t * 1.01})
    return rows


def crossover_row(coll, p, measured):
    return {"kind": "pair", "params": "calibration", "collective": coll, "ranks": p,
            "algo_a": "a", "algo_b": "b", "measured_crossover_B": measured}


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


class RefineSizes(unittest.TestCase):
    def refine(self, sweep, crossings, *extra):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "fit"))
            write(os.path.join(d, "sweep.csv"), sweep)
            write(os.path.join(d, "fit", "crossovers.csv"), crossings)
            out = subprocess.run([sys.executable, SCRIPT, d, os.path.join(d, "fit"), *extra],
                                 capture_output=True, text=True, check=True).stdout
        return [line.split() for line in out.splitlines()]

    def test_midpoints_inside_each_ci_interval(self):
        # allreduce p = 4: a faster up to 4 KiB, b from 16 KiB: one gap, 8 KiB.
        # allgather p = 8: a tie at 16 KiB between 4 KiB and 64 KiB: 8 and 32 KiB.
        # reduce_scatter p = 6: a crossing between 1 and 4 MiB: 2 MiB.
        # alltoall p = 3: a crossing between 4 and 16 MiB, whose 8 MiB is above
        # the default cap. reduce_scatter p = 2 never crosses.
        sweep = (sweep_rows("allreduce", 4, lambda s: 0.9 if s <= 4096 else 1.1)
                 + sweep_rows("allgather", 8,
                              lambda s: 0.9 if s <= 4096 else 1.0 if s == 16384 else 1.1)
                 + sweep_rows("reduce_scatter", 6, lambda s: 0.9 if s <= 1 << 20 else 1.1)
                 + sweep_rows("alltoall", 3, lambda s: 0.9 if s <= 4 << 20 else 1.1)
                 + sweep_rows("reduce_scatter", 2, lambda s: 0.9))
        crossings = [crossover_row("allreduce", 4, 8000), crossover_row("allgather", 8, 16000),
                     crossover_row("reduce_scatter", 6, 2e6), crossover_row("alltoall", 3, 8e6),
                     crossover_row("reduce_scatter", 2, "")]
        self.assertEqual(self.refine(sweep, crossings),
                         [["allgather", "8", "8192", "32768"],
                          ["allreduce", "4", "8192", "8192"],
                          ["reduce_scatter", "6", "2097152", "2097152"]])
        # MAX_BYTES lifts the cap to the 8 MiB midpoint.
        self.assertIn(["alltoall", "3", "8388608", "8388608"],
                      self.refine(sweep, crossings, str(8 << 20)))

    def test_refined_gaps_are_not_refined_again(self):
        # After a refinement the sizes around the crossing are 2x apart.
        sweep = sweep_rows("allreduce", 4, lambda s: 0.9 if s <= 4096 else 1.1)
        for r in sweep_rows("allreduce", 4, lambda s: 0.9 if s <= 4096 else 1.1):
            if r["bytes"] == 16384:
                sweep.append(dict(r, bytes=8192))
        self.assertEqual(self.refine(sweep, [crossover_row("allreduce", 4, 6000)]), [])


    def test_bad_input_is_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            for args in ([], [d, d], [d, d, "2M"]):
                r = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
                self.assertEqual(r.returncode, 2, args)
                self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
                self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
