"""scripts/study.sh --refit regenerates the same files every time (issue 28,
item 2: fit outputs, reports and plots are not committed, because --refit
rewrites them byte for byte).

On the raw files of a quick study (tests/fixtures/study-quick), in a scratch
tree: --refit twice gives byte-identical trees, every file (the simulated
sweep included: its rows record no host, time or load, which would differ
between the runs); it writes nothing outside the study directory (no
results/latest); and a directory that holds no study is refused with one
line and exit 2.

Standard library only. Env: CB_SOURCE_DIR, CB_BUILD_DIR.
"""
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ["CB_SOURCE_DIR"]
BUILD = os.environ["CB_BUILD_DIR"]


def files_below(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


class Refit(unittest.TestCase):
    def setUp(self):
        self.tree = tempfile.mkdtemp(prefix="collbench-refit-")
        shutil.copytree(os.path.join(SOURCE, "scripts"), os.path.join(self.tree, "scripts"))
        os.symlink(BUILD, os.path.join(self.tree, "build"))
        self.study = os.path.join(self.tree, "results", "study-quick")
        shutil.copytree(os.path.join(SOURCE, "tests", "fixtures", "study-quick"), self.study)
        os.remove(os.path.join(self.study, "README.md"))

    def tearDown(self):
        shutil.rmtree(self.tree, ignore_errors=True)

    def refit(self, directory):
        return subprocess.run(
            ["bash", "scripts/study.sh", "--refit", directory], cwd=self.tree,
            env=dict(os.environ, CB_BUILD_DIR=os.path.join(self.tree, "build")),
            stdin=subprocess.DEVNULL, capture_output=True, text=True)

    def test_refit_twice_gives_the_same_files(self):
        first = self.refit("results/study-quick")
        self.assertEqual(first.returncode, 0, first.stderr)
        snapshot = os.path.join(self.tree, "first")
        shutil.copytree(self.study, snapshot)
        second = self.refit("results/study-quick")
        self.assertEqual(second.returncode, 0, second.stderr)

        names = files_below(snapshot)
        self.assertEqual(names, files_below(self.study))
        for expected in ("fit/fit.csv", "fit/model-report.md", "sweep-sim.csv",
                         "map-allreduce.csv", "report.md"):
            self.assertIn(expected, names)
        self.assertTrue(any(n.startswith("plots/") and n.endswith(".png") for n in names), names)
        for name in names:
            a, b = os.path.join(snapshot, name), os.path.join(self.study, name)
            self.assertTrue(filecmp.cmp(a, b, shallow=False), f"{name} differs between refits")
        # Nothing outside the study: no results/latest, nothing else in results/.
        self.assertEqual(sorted(os.listdir(os.path.join(self.tree, "results"))), ["study-quick"])

    def test_testbed_refit_twice_gives_the_same_files(self):
        # A testbed study's setting (tests/fixtures/testbed-500us-100Mbit):
        # fit with the network's CPU-limited rows, recommendations and the
        # testbed report, the same bytes every time.
        setting = os.path.join(self.tree, "results", "tb", "testbed", "500us-100Mbit")
        shutil.copytree(os.path.join(SOURCE, "tests", "fixtures", "testbed-500us-100Mbit"),
                        setting)
        os.remove(os.path.join(setting, "README.md"))
        study = os.path.join(self.tree, "results", "tb")
        first = self.refit("results/tb")
        self.assertEqual(first.returncode, 0, first.stderr)
        snapshot = os.path.join(self.tree, "first-tb")
        shutil.copytree(study, snapshot)
        second = self.refit("results/tb")
        self.assertEqual(second.returncode, 0, second.stderr)
        names = files_below(snapshot)
        self.assertEqual(names, files_below(study))
        for expected in ("testbed/report.md", "testbed/500us-100Mbit/fit/link-limited.csv"):
            self.assertIn(expected, names)
        for name in names:
            self.assertTrue(filecmp.cmp(os.path.join(snapshot, name), os.path.join(study, name),
                                        shallow=False), f"{name} differs between refits")

    def test_a_directory_without_a_study_is_refused(self):
        os.makedirs(os.path.join(self.tree, "results", "empty"))
        r = self.refit("results/empty")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("holds no study", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
