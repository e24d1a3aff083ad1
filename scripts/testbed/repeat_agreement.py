#!/usr/bin/python3
"""Markdown of repeat-agreement.csv: how well one testbed run's measured
crossovers predict another's, the ceiling that the measurement itself puts on
the target "every measured crossover predicted within 2x in size".

  collbench repeat-agreement RUN RUN [RUN...] --csv repeat-agreement.csv
  /usr/bin/python3 scripts/testbed/repeat_agreement.py repeat-agreement.csv

`collbench repeat-agreement` judges (models/repeat_agreement.hpp): per ordered
pair of runs and params level, the counted crossovers (CPU-limited ones left
out), those the other run measures within the factor, those the model puts
within it, and per pair of runs the crossovers measured more than factor^2
apart. This file only chooses which level to show, report.py's main
calibrated level of the run being predicted (its fit/report-levels.csv, the
RUN paths as the CSV names them), and formats the rows on standard output.
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (the readers and the levels the report shows)


def key(r):
    return r["collective"], int(r["ranks"]), r["algo_a"], r["algo_b"]


def names(runs):
    """Each run by its path below the runs' common folder, so that RUN/testbed
    is told from another run named testbed-RUN."""
    common = os.path.commonpath([os.path.abspath(r) for r in runs])
    out = {r: os.path.relpath(os.path.abspath(r), common) for r in runs}
    return {r: n if n != "." else os.path.basename(os.path.abspath(r)) for r, n in out.items()}


def level(run, setting):
    """report.py's main calibrated level of one setting (its fit/report-levels.csv)."""
    return report.shown_levels(os.path.join(run, setting))[3]


def render_setting(s, runs, name, rows):
    agree = {(r["run_a"], r["run_b"], r["params"]): r for r in rows if r["kind"] == "agreement"}
    lv = {r: level(r, s) for r in runs}
    f = f"{float(rows[0]['factor']):g}×"  # the factor repeat-agreement judged with
    print(f"## {s}\n")
    print(f"| measured in | predicted by | crossovers | the other run within {f} | "
          f"model within {f} | model within {f} where the other run is |")
    print("|---|---|---|---|---|---|")
    for a, b in itertools.permutations(runs, 2):
        r = agree.get((b, a, lv[b]))
        n, other, model, both = (int(r[c]) for c in ("crossovers", "other_run_within",
                                                     "model_within", "both_within")) \
            if r else (0, 0, 0, 0)
        pct = (lambda x: f"{x} ({100 * x / n:.1f}%)") if n else str
        print(f"| `{name[b]}` | `{name[a]}` | {n} | {pct(other)} | {pct(model)} ({lv[b]}) | "
              f"{both} of {other} |")
    print()
    for a, b in itertools.combinations(runs, 2):
        pair = [r for r in rows if r["run_a"] == a and r["run_b"] == b]
        summary = next(r for r in pair if r["kind"] == "runs")
        f = float(summary["factor"])
        print(f"`{name[a]}` and `{name[b]}`: {summary['apart']} pair(s) measured more than "
              f"{f * f:g}× apart (no one size is within {f:g}× of both); "
              f"{summary['only_in_one']} pair(s) measured to cross in only one of the two.\n")
        far = sorted((key(r), float(r["crossover_a_B"]), float(r["crossover_b_B"]))
                     for r in pair if r["kind"] == "apart")
        for k, x, y in far:
            print(f"- {k[0]} p = {k[1]} {k[2]} / {k[3]}: {x:.3g} B and {y:.3g} B")
        if far:
            print()


def main():
    if len(sys.argv) != 2 or not os.path.isfile(sys.argv[1]):
        print("usage: repeat_agreement.py REPEAT_AGREEMENT.csv (written by collbench "
              "repeat-agreement)", file=sys.stderr)
        sys.exit(2)
    try:
        rows = report.read_csv(sys.argv[1])
    except report.results_csv.InputError as e:
        print(f"repeat_agreement.py: {e}", file=sys.stderr)
        sys.exit(2)
    if not rows:
        print(f"repeat_agreement.py: {sys.argv[1]} has no rows", file=sys.stderr)
        sys.exit(2)
    # The runs in command-line order: every pair of them has a runs row.
    runs = list(dict.fromkeys(x for r in rows if r["kind"] == "runs"
                              for x in (r["run_a"], r["run_b"])))
    name = names(runs)
    factor = float(rows[0]["factor"])
    print("# Measured crossovers, one run against another\n")
    print(f"Runs: {', '.join(f'`{name[r]}`' for r in runs)}. A run's measured crossover "
          f"taken as the prediction of another run's, within {factor:g}× in size; the model "
          "(report.py's main calibrated level) by the same rule; CPU-limited crossovers left "
          "out of the run being predicted, as report.py does.\n")
    try:
        for s in dict.fromkeys(r["setting"] for r in rows):
            render_setting(s, runs, name, [r for r in rows if r["setting"] == s])
    except report.results_csv.InputError as e:
        print(f"repeat_agreement.py: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
