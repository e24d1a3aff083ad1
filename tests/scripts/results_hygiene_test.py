#!/usr/bin/python3
"""results/ holds reference data only (issue 28): no tracked file there is a script or source
(by extension or the executable bit), and the tracked files stay under 20 MB in all.
Reads `git ls-files` of the source tree; skipped outside a git checkout."""
import os
import subprocess
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CODE = (".sh", ".py", ".c", ".cc", ".cpp", ".h", ".hpp", ".pl")
LIMIT_BYTES = 20 * 2 ** 20


def tracked(root):
    done = subprocess.run(["git", "-C", root, "ls-files", "-s", "results"], capture_output=True,
                          text=True)
    if done.returncode != 0:
        return None
    # "MODE SHA STAGE\tPATH"
    return [(line.split()[0], line.split("\t", 1)[1]) for line in done.stdout.splitlines()]


def offenders(entries):
    return [path for mode, path in entries if path.endswith(CODE) or mode == "100755"]


class ResultsHygiene(unittest.TestCase):
    def test_the_rule_finds_a_script(self):
        self.assertEqual(offenders([("100644", "results/a/data.csv"),
                                    ("100644", "results/a/run.sh"),
                                    ("100755", "results/a/tool")]),
                         ["results/a/run.sh", "results/a/tool"])

    def test_results_hold_data_only(self):
        entries = tracked(ROOT)
        if entries is None:
            self.skipTest("not a git checkout")
        self.assertEqual(offenders(entries), [], "scripts belong in scripts/, not results/")
        size = sum(os.path.getsize(os.path.join(ROOT, p)) for _, p in entries
                   if os.path.isfile(os.path.join(ROOT, p)))
        self.assertLessEqual(size, LIMIT_BYTES, f"results/ tracks {size} B")


if __name__ == "__main__":
    unittest.main()
