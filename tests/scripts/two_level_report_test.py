"""scripts/testbed/two_level.sh --refit on a copy of the committed 3 x 2 run:
the stage's report shows, per collective, the hierarchical and flat figures
and verdicts that `collbench fit` wrote into fit-C/accuracy.csv and the
library comparison of fit-C/families.csv (nothing is recomputed in Python),
and the extrapolation to 1024 nodes x 8 ranks (extrapolation-C.csv); a folder
without the run's files is refused with one line and exit 2, and leaves no
report.md."""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ["CB_SOURCE_DIR"]
BUILD = os.environ["CB_BUILD_DIR"]
RUN = os.path.join(SOURCE, "results", "two-level-3x2-2ms-200Mbit-one-load")
COLLECTIVES = ["allreduce", "reduce_scatter", "allgather", "alltoall"]


def graded(path, scope, params="calibration"):
    with open(path, newline="") as f:
        return next(r for r in csv.DictReader(f)
                    if r["params"] == params and r["scope"] == scope)


def graded_link(path):
    with open(path, newline="") as f:
        return next(csv.DictReader(f))


class TwoLevelReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cb-two-level-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def refit(self, d):
        return subprocess.run(["bash", os.path.join(SOURCE, "scripts/testbed/two_level.sh"), d,
                               "--refit"], env={**os.environ, "CB_BUILD_DIR": BUILD},
                              capture_output=True, text=True)

    def test_report_rows_are_the_fits_grades(self):
        d = os.path.join(self.tmp, "two-level")
        shutil.copytree(RUN, d)
        done = self.refit(d)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(d, "report.md")) as f:
            lines = f.read().splitlines()
        for c in COLLECTIVES:
            h = graded(os.path.join(d, f"fit-{c}", "accuracy.csv"), "hierarchical")
            flat = graded(os.path.join(d, f"fit-{c}", "accuracy.csv"), "flat")
            row = next(l for l in lines if l.startswith(f"| {c} |"))
            want_h = f"{h['rows_large']}, {100 * float(h['median_abs_err_large']):.1f}%"
            want_f = f"{flat['rows_large']}, {100 * float(flat['median_abs_err_large']):.1f}%"
            self.assertIn(want_h, row)
            self.assertIn(want_f, row)
            self.assertIn("met" if h["met_median_abs_err_large"] == "1" else "missed", row)
            # The simulator's rows (two_level.sh passes --simulate): its grades, one
            # simulated.csv row per measured schedule row on two levels.
            sim_row = [l for l in lines if l.startswith(f"| {c} |")][1]
            for scope in ("sim-hierarchical", "sim-flat"):
                g = graded(os.path.join(d, f"fit-{c}", "accuracy.csv"), scope, "simulator")
                self.assertIn(f"{g['rows_large']}, {100 * float(g['median_abs_err_large']):.1f}%, "
                              f"{100 * float(g['median_signed_err_large']):+.1f}%, ≤ 10.0%", sim_row)
            with open(os.path.join(d, f"fit-{c}", "simulated.csv"), newline="") as f:
                simulated = list(csv.DictReader(f))
            with open(os.path.join(d, f"{c}.csv"), newline="") as f:
                schedules = [r for r in csv.DictReader(f) if r["algorithm"] != "mpi"]
            self.assertEqual(len(simulated), len(schedules))
            # The library table shows families.csv's ratio (fit computed it, with
            # MPICH's forced algorithms from --library), e.g. at the largest size.
            with open(os.path.join(d, f"fit-{c}", "families.csv"), newline="") as f:
                fam = list(csv.DictReader(f))
            self.assertTrue(fam, f"{c}: families.csv has no rows")
            top = fam[-1]
            want = (f"{float(top['hier_over_library']):.2f} "
                    f"[{float(top['hier_over_library_lo']):.2f}, "
                    f"{float(top['hier_over_library_hi']):.2f}]")
            self.assertTrue(any(l.startswith(f"| {c} |") and want in l and top["hier_algorithm"] in l
                                for l in lines), f"{c}: no library row with {want}")
            names = {r["library_algorithm"] for r in fam}
            self.assertTrue(names - {"default"}, f"{c}: no forced MPICH algorithm in {names}")
        self.check_extrapolation(d, lines)
        link = graded_link(os.path.join(d, "fit-allreduce", "calibrated-link.csv"))
        text = "\n".join(lines)
        self.assertIn(f"α {100 * float(link['alpha_error']):+.1f}%", text)
        self.assertIn(f"1/β {100 * float(link['rate_error']):+.1f}%", text)

    def check_extrapolation(self, d, lines):
        """extrapolation-C.csv (`collbench map` at 1024 nodes x 8 ranks): every
        collective has both families timed at 2 MiB, and the report's section shows
        each family's fastest with the simulator's grade at the measured layout."""
        section = lines[lines.index("## Extrapolated to 1024 nodes × 8 ranks (simulator)"):]
        section = section[:next(i for i, l in enumerate(section[1:], 1) if l.startswith("## "))]
        for c in COLLECTIVES:
            with open(os.path.join(d, f"extrapolation-{c}.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertTrue(rows, f"{c}: extrapolation-{c}.csv has no rows")
            self.assertEqual({(r["ranks"], r["ranks_per_node"]) for r in rows}, {("8192", "8")})
            timed = [r for r in rows if r["time_s"]]
            self.assertTrue(all(float(r["time_s"]) > 0 for r in timed), c)
            # Every row left untimed was skipped by map's own event estimate: two_level.sh
            # names no algorithm to leave out but mpi.
            untimed = [r for r in rows if not r["time_s"]]
            self.assertTrue(all(r["note"].startswith("skipped: about") for r in untimed), c)
            self.assertIn("naive", {r["algorithm"] for r in untimed}, c)
            self.assertNotIn("mpi", {r["algorithm"] for r in rows}, c)
            at_2m = [r for r in timed if r["bytes"] == str(2 << 20)]
            families = {":" in r["algorithm"] for r in at_2m}
            self.assertEqual(families, {True, False}, f"{c}: not both families at 2 MiB")
            hier = min((r for r in at_2m if ":" in r["algorithm"]), key=lambda r: float(r["time_s"]))
            flat = min((r for r in at_2m if ":" not in r["algorithm"]),
                       key=lambda r: float(r["time_s"]))
            sim = {s: graded(os.path.join(d, f"fit-{c}", "accuracy.csv"), s, "simulator")
                   for s in ("sim-hierarchical", "sim-flat")}
            row = next((l for l in section if l.startswith(f"| {c} | 2 MiB |")), None)
            self.assertIsNotNone(row, f"{c}: no 2 MiB row in the extrapolation section")
            cells = [x.strip() for x in row.strip("|").split("|")]
            self.assertEqual(cells[2:], [
                f"`{hier['algorithm']}` {1e3 * float(hier['time_s']):.4g} ms",
                f"`{flat['algorithm']}` {1e3 * float(flat['time_s']):.4g} ms",
                f"{float(hier['time_s']) / float(flat['time_s']):.2f}",
                f"{100 * float(sim['sim-hierarchical']['median_abs_err_large']):.1f}%, "
                f"{100 * float(sim['sim-flat']['median_abs_err_large']):.1f}%"], row)
        # All-reduce spans the sizes: 8 B and 4 KiB too (one element per rank of the
        # others needs 32 KiB at 8192 ranks).
        self.assertTrue(any(l.startswith("| allreduce | 8 B |") for l in section))
        self.assertIn("Predicted, not measured", "\n".join(section))

    def test_a_folder_without_the_run_is_refused(self):
        d = os.path.join(self.tmp, "empty")
        os.makedirs(d)
        done = subprocess.run(["/usr/bin/python3",
                               os.path.join(SOURCE, "scripts/testbed/report_two_level.py"), d],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("setting.txt", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "report.md")))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
