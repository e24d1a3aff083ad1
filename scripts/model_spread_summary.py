#!/usr/bin/env python3
"""The summary of scripts/model_spread.sh: per pair and over the pairs, the
calibrated model's accuracy at the levels over-pairs.csv gives a role (the
baseline, the asked level and the same level with term probe, the mode probe:
models/spread_judge.hpp chooses them), beside each pair's coherence mode as
its probes show it.

    model_spread_summary.py OUT_DIR PAIRS   (markdown on stdout)
"""
import csv
import sys

from results_csv import band_labels


def modes(out):
    """Per pair, the calibration's 8 B and 256 KiB probes and the sweep's median
    (min-max) over its rows, in microseconds, as `collbench report --spread`
    wrote them (probes.csv, models/spread_probes.hpp); "no probe" without them."""
    path = f"{out}/probes.csv"
    try:
        with open(path) as f:
            rows = list(csv.DictReader(f))
    except OSError:
        sys.exit(f"model_spread.sh: {path} is missing (collbench report --spread {out} writes it)")
    out = []
    for r in rows:
        if not r["calibration_small_us"]:
            out.append((r["pair"], "no probe"))
            continue
        v = {k: float(x) for k, x in r.items() if k.endswith("_us")}
        out.append((r["pair"],
                    f"calibration {v['calibration_small_us']:.2f} / {v['calibration_large_us']:.0f} µs; "
                    f"sweep {v['sweep_small_median_us']:.2f} ({v['sweep_small_min_us']:.2f}–"
                    f"{v['sweep_small_max_us']:.2f}) / {v['sweep_large_median_us']:.0f} "
                    f"({v['sweep_large_min_us']:.0f}–{v['sweep_large_max_us']:.0f}) µs"))
    return out


# The figures judged over the pairs, in the order shown: over-pairs.csv's
# figure and its label ({large}: the size the fit split the errors at).
FIGURES = (("median_abs_err_large", "median \\|err\\| ≥ {large}"),
           ("median_abs_err_small", "median \\|err\\| < {large}"),
           ("worst_collective", "worst collective"),
           ("picks", "picks right"),
           ("median_regret", "median regret"))


def accuracy_rows(path):
    """A fit's accuracy.csv over every row (scope all), by params."""
    with open(path) as f:
        return {r["params"]: r for r in csv.DictReader(f) if r.get("scope") == "all"}


def large_label(out):
    """The size from which an error counts as large, as pair 1's fit split them
    (its accuracy.csv's large_from_B): "64 KiB"."""
    path = f"{out}/pair-1/fit/accuracy.csv"
    row = next(iter(accuracy_rows(path).values()), None)
    if row is None or "large_from_B" not in row:
        sys.exit(f"model_spread.sh: {path} has no row of scope all with large_from_B")
    return band_labels(path, row)["large"]


def pair_rows(out, pairs, levels):
    """Per pair and level: (pair, load, level, |err| large %, small %,
    worst collective, its %, picks right, picks, median regret %); a level
    missing from a pair is an error unless it is the last (term probe needs a
    probe)."""
    rows = []
    for i in range(1, pairs + 1):
        acc = accuracy_rows(f"{out}/pair-{i}/fit/accuracy.csv")
        with open(f"{out}/pair-{i}/load-before.txt") as f:
            load = f.read().split()[0]
        for name in levels:
            r = acc.get(name)
            if r is None:
                if name == levels[-1]:
                    continue  # a calibration without the probe has no level with it
                sys.exit(f"model_spread.sh: pair {i} has no accuracy row '{name}'")
            rows.append((i, load, name, 100 * float(r["median_abs_err_large"]),
                         100 * float(r["median_abs_err_small"]), r["worst_collective"],
                         100 * float(r["worst_collective_median_abs_err"]), int(r["picks_right"]),
                         int(r["picks"]), 100 * float(r["median_regret"])))
    return rows


def judged(out):
    """over-pairs.csv's rows by (level, figure): `collbench report --spread` judges the
    medians over the pairs against the fit's targets (models/spread_judge.hpp)."""
    path = f"{out}/over-pairs.csv"
    try:
        with open(path) as f:
            return {(r["level"], r["figure"]): r for r in csv.DictReader(f)}
    except OSError:
        sys.exit(f"model_spread.sh: {path} is missing (collbench report --spread {out} writes it)")


def shown_levels(judged_rows):
    """The levels over-pairs.csv gives a role (`collbench report --spread` chose
    them, models/spread_judge.hpp), in its order."""
    out = []
    for (level, _), r in judged_rows.items():
        if r.get("role") and level not in out:
            out.append(level)
    return out


def over_pairs(judged_rows, name, large):
    """For one level: (label, median, min, max, target text, met) per figure, in
    percent, as `collbench report --spread` judged them; none for a level no pair has.
    large: large_label's size."""
    out = []
    for figure, label in FIGURES:
        label = label.format(large=large)
        r = judged_rows.get((name, figure))
        if r is None:
            return []
        t = 100 * float(r["target"])
        text = f"{'≤' if r['bound'] == 'at_most' else '≥'} {t:g}%"
        out.append((label, 100 * float(r["median"]), 100 * float(r["min"]),
                    100 * float(r["max"]), text, r["met"] == "1"))
    return out


def main(out, pairs):
    judged_rows = judged(out)
    levels = shown_levels(judged_rows)
    rows = pair_rows(out, pairs, levels)
    print("Mode probe per pair (µs per exchange step at 8 B / 256 KiB):\n")
    for i, text in modes(out):
        print(f"- pair {i}: {text}")
    print()
    large = large_label(out)
    print(f"| pair | load | level | median \\|err\\| ≥ {large} | < {large} | worst collective | picks | median regret |")
    print("|---|---|---|---|---|---|---|---|")
    for i, load, name, lg, sm, wc, wv, pr, pn, rg in rows:
        print(f"| {i} | {load} | {name} | {lg:.1f}% | {sm:.1f}% | {wc} {wv:.1f}% | {pr}/{pn} = {100*pr/pn:.1f}% | {rg:.1f}% |")
    print()
    print("| level | figure | median over pairs | min | max | target |")
    print("|---|---|---|---|---|---|")
    for name in levels:
        for label, med, lo, hi, target, _ in over_pairs(judged_rows, name, large):
            print(f"| {name} | {label} | {med:.1f}% | {lo:.1f}% | {hi:.1f}% | {target} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: model_spread_summary.py OUT_DIR PAIRS")
    main(sys.argv[1], int(sys.argv[2]))
