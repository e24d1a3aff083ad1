#!/usr/bin/python3
"""How well one testbed run's measured crossovers predict another's: the
ceiling that the measurement itself puts on issue #10's target "every
measured crossover predicted within 2x in size".

  /usr/bin/python3 scripts/testbed/repeat_agreement.py RUN RUN [RUN...]

Each RUN is a testbed study folder as report.py reads it. Settings are the
folders that every RUN has. For each ordered pair of runs (A, B), B's
measured crossovers are counted by report.py's rules (its main calibrated
level, CPU-limited ones left out) and A's measured crossover for the same
(collective, p, pair) is taken as the prediction: within 2x in size or not.
Beside it, B's own model by the same rule, and the model on the crossovers
that A reproduces. A pair whose measured crossovers in two runs lie more
than 4x apart cannot be predicted within 2x of both by any one size.

Prints a markdown report on standard output; nothing is written.
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import classify_crossovers  # noqa: E402  (report.py's main level of a setting)
import report  # noqa: E402  (the fit's link-limited scope and its crossover factor)


def key(r):
    return r["collective"], int(r["ranks"]), r["algo_a"], r["algo_b"]


def within(x, y, factor):
    return x is not None and y is not None and max(x / y, y / x) <= factor


def measured(d):
    """The run's measured crossovers by key: those report.py counts (the fit's
    link-limited scope), each with whether the model at report.py's main level
    predicts it within the factor (the fit's verdict), {key: (measured,
    within)}; and every one, CPU-limited or not, {key: measured}. Measured
    crossovers are the same at every level; `global` has them all."""
    xcsv = report.read_csv(os.path.join(d, "fit", "crossovers.csv"))
    lv = classify_crossovers.level_of(d, report.read_csv(os.path.join(d, "fit", "predictions.csv")))
    every = {key(r): float(r["measured_crossover_B"]) for r in xcsv
             if r["kind"] == "pair" and r["measured_crossover_B"] and r["params"] == "global"}
    counted = {key(r): (float(r["measured_crossover_B"]), r["verdict"] == "within")
               for r in report.scoped_crossovers(xcsv, lv)}
    return lv, counted, every


def crossover_factor(d):
    """The factor of the fit's crossover target (accuracy.csv, scope link-limited)."""
    return float(next(iter(report.link_grades(os.path.join(d, "fit")).values()))
                 ["target_crossover_factor"])


def main():
    runs = sys.argv[1:]
    if len(runs) < 2 or not all(os.path.isdir(r) for r in runs):
        print("usage: repeat_agreement.py RUN RUN [RUN...] (two or more testbed study folders)",
              file=sys.stderr)
        sys.exit(2)
    settings = sorted(set.intersection(*(
        {x for x in os.listdir(r) if os.path.exists(os.path.join(r, x, "fit", "crossovers.csv"))}
        for r in runs)))
    if not settings:
        print("repeat_agreement.py: no setting with fit/crossovers.csv in every run",
              file=sys.stderr)
        sys.exit(2)
    factor = crossover_factor(os.path.join(runs[0], settings[0]))
    # Each run by its path below the runs' common folder, so that
    # RUN/testbed is told from another run named testbed-RUN.
    common = os.path.commonpath([os.path.abspath(r) for r in runs])
    name = {r: os.path.relpath(os.path.abspath(r), common) for r in runs}
    name = {r: n if n != "." else os.path.basename(os.path.abspath(r)) for r, n in name.items()}
    print("# Measured crossovers, one run against another\n")
    print(f"Runs: {', '.join(f'`{name[r]}`' for r in runs)}. A run's measured crossover "
          f"taken as the prediction of another run's, within {factor:g}× in size; the model "
          "(report.py's main calibrated level) by the same rule; CPU-limited crossovers left "
          "out of the run being predicted, as report.py does.\n")
    for s in settings:
        found = {r: measured(os.path.join(r, s)) for r in runs}
        every = {r: found[r][2] for r in runs}
        print(f"## {s}\n")
        print("| measured in | predicted by | crossovers | the other run within 2× | "
              "model within 2× | model within 2× where the other run is |")
        print("|---|---|---|---|---|---|")
        for a, b in itertools.permutations(runs, 2):
            lv, xs, _ = found[b]
            repeat_ok = {k for k, (m, _) in xs.items() if within(every[a].get(k), m, factor)}
            model_ok = {k for k, (_, ok) in xs.items() if ok}
            n = len(xs)
            pct = (lambda x: f"{x} ({100 * x / n:.1f}%)") if n else str
            print(f"| `{name[b]}` | `{name[a]}` | {n} | {pct(len(repeat_ok))} | "
                  f"{pct(len(model_ok))} ({lv}) | {len(model_ok & repeat_ok)} of {len(repeat_ok)} |")
        print()
        for a, b in itertools.combinations(runs, 2):
            far = sorted((k, every[a][k], every[b][k]) for k in set(every[a]) & set(every[b])
                         if not within(every[a][k], every[b][k], factor * factor))
            one = sorted(k for k in set(every[a]) ^ set(every[b]))
            print(f"`{name[a]}` and `{name[b]}`: {len(far)} pair(s) measured more than "
                  f"{factor * factor:g}× apart (no one size is within {factor:g}× of both); "
                  f"{len(one)} pair(s) measured to cross in only one of the two.\n")
            for k, x, y in far:
                print(f"- {k[0]} p = {k[1]} {k[2]} / {k[3]}: {x:.3g} B and {y:.3g} B")
            if far:
                print()


if __name__ == "__main__":
    main()
