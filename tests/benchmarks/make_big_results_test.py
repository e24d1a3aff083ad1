"""make_big_results (tests/benchmarks/make_big_results.cpp), the scale benchmark's input
(docs/scale.md): each shape's rows and configurations, the same file from the same
arguments, a file `collbench fit` reads; bad input: one line, exit 2, no file.

    python3 make_big_results_test.py MAKE_BIG_RESULTS COLLBENCH
"""
import csv
import math
import os
import subprocess
import sys
import tempfile
import unittest

GEN, COLLBENCH = sys.argv[1], sys.argv[2]
KEY = ("transport", "collective", "algorithm", "ranks")


class MakeBigResults(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def make(self, *args, name="big.csv"):
        out = os.path.join(self.dir, name)
        r = subprocess.run([GEN, out, *args], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, newline="") as f:
            return list(csv.DictReader(f))

    def configs(self, rows):
        out = {}
        for r in rows:
            out.setdefault(tuple(r[k] for k in KEY), []).append(int(r["bytes"]))
        return out

    def test_one_is_one_long_sweep_or_cut_by_sizes_per_config(self):
        rows = self.make("--rows", "1000")
        self.assertEqual(len(rows), 1000)
        self.assertEqual(self.configs(rows), {("mpi", "allreduce", "ring", "2"):
                                              [4 * c for c in range(1, 1001)]})
        cut = self.configs(self.make("--rows", "1000", "--sizes-per-config", "100"))
        self.assertEqual(sorted(int(k[3]) for k in cut), list(range(2, 12)))

    def test_grid_is_whole_configurations_of_25_sizes(self):
        rows = self.make("--rows", "2000", "--shape", "grid")
        self.assertTrue(2000 <= len(rows) < 2025 and len(rows) % 25 == 0, len(rows))
        configs = self.configs(rows)
        self.assertEqual(len(configs), len(rows) // 25)
        self.assertEqual(configs[("mpi", "allreduce", "naive", "2")],
                         [2 ** k * 4 for k in range(25)])
        self.assertEqual(configs[("mpi", "alltoall", "mpi", "2")], [2 ** k * 8 for k in range(25)])
        self.assertIn(("ipc", "alltoall", "mpi", "2"), configs)

    def test_repeats_measure_25_sizes_again_and_again(self):
        rows = self.make("--rows", "700", "--shape", "repeats")
        self.assertEqual(len(rows), 700)
        configs = self.configs(rows)
        self.assertEqual(len(configs), 12)
        self.assertTrue(all(len(set(sizes)) == 25 for sizes in configs.values()))

    def test_algos_are_every_algorithm_at_p_2_on_linear_sizes(self):
        configs = self.configs(self.make("--rows", "310", "--shape", "algos"))
        self.assertEqual(len(configs), 31)
        self.assertTrue(all(len(sizes) == 10 for sizes in configs.values()))

    def test_times_are_the_model_with_noise_and_the_same_every_time(self):
        rows = self.make("--rows", "1550", "--shape", "grid")
        for r in rows:
            t = float(r["time_median_us"])
            self.assertTrue(math.isfinite(t) and t > 0, r)
        # Above the knee a larger size takes longer; the noise (2%) never reorders a doubling.
        ring = [float(r["time_median_us"]) for r in rows
                if r["algorithm"] == "ring" and r["collective"] == "allreduce"
                and r["transport"] == "mpi" and int(r["bytes"]) >= 65536]
        self.assertEqual(ring, sorted(ring))
        again = self.make("--rows", "1550", "--shape", "grid", name="again.csv")
        self.assertEqual(rows, again)

    def test_collbench_fit_reads_it(self):
        self.make("--rows", "1550", "--shape", "grid")
        r = subprocess.run([COLLBENCH, "fit", os.path.join(self.dir, "big.csv"), "--out",
                            os.path.join(self.dir, "fit")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "fit", "summary.csv"), newline="") as f:
            source = next(row for row in csv.DictReader(f) if row["kind"] == "source")
        self.assertEqual(source["number"], "1550")

    def test_bad_input_is_one_line_exit_2_and_no_file(self):
        out = os.path.join(self.dir, "bad.csv")
        for args, says in ((["--rows", "0"], "--rows 0"), (["--rows", "x"], "--rows x"),
                           (["--shape", "cube"], "--shape cube"), (["--nope"], "--nope"),
                           (["--shape", "grid", "--sizes-per-config", "5"], "shape one only")):
            r = subprocess.run([GEN, out, *args], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(says, r.stderr)
            self.assertFalse(os.path.exists(out), args)
        r = subprocess.run([GEN, self.dir], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(os.listdir(self.dir), [])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
