"""Valid inputs the cases start from, made once per probe by collbench itself
(a simulated sweep is quick and needs no mpiexec)."""
import os
import subprocess
import sys


def results_csv(ctx):
    """A results CSV of two algorithms at 2 and 4 simulated ranks."""
    def make(d):
        path = os.path.join(d, "sweep-sim.csv")
        subprocess.run([ctx.bin, "run", "--quiet", "--transport", "sim", "--ranks", "2,4",
                        "--algo", "ring,rhd", "-b", "8", "-e", "64K", "--csv", path],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return path
    return ctx.fixture("results", make)


def study_dir(ctx):
    """A synthetic study directory plot and report read
    (tests/scripts/make_plot_fixture.py)."""
    def make(d):
        study = os.path.join(d, "study")
        subprocess.run(["/usr/bin/python3",
                        os.path.join(ctx.root, "tests", "scripts", "make_plot_fixture.py"), study],
                       check=True)
        return study
    return ctx.fixture("study", make)


def fit_csv(ctx):
    """fit.csv of the results fixture."""
    def make(d):
        subprocess.run([ctx.bin, "fit", results_csv(ctx), "--out", d], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return os.path.join(d, "fit.csv")
    return ctx.fixture("fit", make)


def prepare(ctx):
    """Makes every fixture before cases run side by side."""
    results_csv(ctx)
    study_dir(ctx)
    fit_csv(ctx)


def placeholders(ctx, d):
    return {"d": d, "results": results_csv(ctx), "study": study_dir(ctx),
            "cal": ctx.calibration}


def expand(words, values):
    return [w.format(**values) for w in words]


if __name__ == "__main__":
    sys.exit("fixtures.py is a module of tests/probe/probe.py")
