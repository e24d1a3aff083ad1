"""scripts/arrival/report.sh on a copy of a stragglers validation fixture (tests/fixtures): the
report's rows are arrival-check's summary (nothing recomputed in Python), its crossover table
has one line per measured crossover, the plot is drawn; a directory without the validation's
files is refused with one line and exit 2, and nothing is written."""
import csv
import os
import shutil
import subprocess
import tempfile
import unittest

SOURCE = os.environ["CB_SOURCE_DIR"]
BUILD = os.environ["CB_BUILD_DIR"]
RUN = os.path.join(SOURCE, "tests", "fixtures", "stragglers-rs-p5")
RAW = ["arrival.csv", "calibration.csv", "setting.txt"]


class ArrivalReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cb-arrival-report-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def report(self, *dirs):
        return subprocess.run(["bash", os.path.join(SOURCE, "scripts/arrival/report.sh"), *dirs],
                              env={**os.environ, "CB_BUILD_DIR": BUILD}, capture_output=True,
                              text=True)

    def copy(self, name):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        for f in RAW:
            shutil.copy(os.path.join(RUN, f), d)
        return d

    def test_report_rows_are_the_checks_summary(self):
        d = self.copy("run")
        done = self.report(d)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(d, "report.md")) as f:
            lines = f.read().splitlines()
        with open(os.path.join(d, "check", "arrival-summary.csv"), newline="") as f:
            summary = list(csv.DictReader(f))
        for s in summary:
            row = next(l for l in lines if l.startswith(f"| {s['scope']} |"))
            self.assertIn(f"{100 * float(s['median_abs_err_large']):.1f}% ({s['rows_large']} rows, "
                          f"{'met' if s['err_met'] == '1' else 'missed'})", row)
            self.assertIn(f"{s['picks_right']} of {s['cells']}", row)
        with open(os.path.join(d, "check", "arrival-crossovers.csv"), newline="") as f:
            crossings = list(csv.DictReader(f))
        self.assertGreater(len(crossings), 0)
        table = [l for l in lines if l.startswith("| reduce_scatter |")]
        self.assertEqual(len(table), len(crossings))
        self.assertTrue(os.path.getsize(os.path.join(d, "plots", "arrival.png")) > 0)

    def test_a_directory_without_the_runs_files_is_refused(self):
        good = self.copy("good")
        bad = os.path.join(self.tmp, "bad")
        os.makedirs(bad)
        done = self.report(good, bad)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("bad", done.stderr)
        self.assertIn("arrival.csv", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(good, "report.md")))
        self.assertFalse(os.path.exists(os.path.join(good, "check")))
        self.assertEqual(os.listdir(bad), [])


if __name__ == "__main__":
    unittest.main()
