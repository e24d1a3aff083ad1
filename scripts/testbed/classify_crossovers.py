#!/usr/bin/python3
"""Why each measured crossover the model misses (issue #10's "within 2x in
size") is missed, as `collbench fit --network` classed it (fit/miss-classes.csv;
the rules and their thresholds: models/miss_classes.hpp).

  /usr/bin/python3 scripts/testbed/classify_crossovers.py DIR [SETTING...]

DIR is a testbed study folder as report.py reads it (each setting with
fit/predictions.csv, fit/report-levels.csv and fit/miss-classes.csv). The
misses shown are report.py's: those of its main calibrated level (the
richest level with flight, `main` in fit/report-levels.csv). The classes,
first rule that holds:

 (i)   ill-conditioned by the measurement: "interval" (the prediction lies
       inside the measured crossover's CI interval) or "parallel" (at the
       measured sizes beside the crossover the model's ratio T_a / T_b lies
       inside the measured ratio's interval: the curves are nearly parallel);
 (ii)  "cpu": a CPU-limited rank count, where the CPU time the model does not
       charge for the difference in rounds is at least the model's gap;
 (iii) a cost the model lacks, named: "incast" (a direct algorithm, p - 1
       flows into each link in one round, under-predicted at large sizes) or
       "latency count" (a latency-bound size);
 (iv)  "other".

Nothing here judges: this file counts and formats the CSV's rows.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (report.py's readers)


def classify(d):
    """The main level (report.py's main calibrated column, as fit/report-levels.csv
    names it), and its rows of fit/miss-classes.csv in the file's order."""
    lv = report.shown_levels(d)[3]
    path = os.path.join(d, "fit", "miss-classes.csv")
    out = []
    # No rows when nothing is missed; a fit without --network writes no file.
    for r in report.results_csv.read_csv(path, [], empty_ok=True):
        if r["params"] != lv:
            continue
        lo, hi = r["measured_crossover_lo_B"], r["measured_crossover_hi_B"]
        q = r["predicted_crossover_B"]
        out.append({"coll": r["collective"], "p": int(r["ranks"]),
                    "pair": f"{r['algo_a']} / {r['algo_b']}",
                    "m": float(r["measured_crossover_B"]), "q": float(q) if q else None,
                    "interval": (float(lo), float(hi)) if lo and hi else None,
                    "size": int(r["nearest_B"]), "err": (float(r["err_a"]), float(r["err_b"])),
                    "ratio_ci": (float(r["ratio_ci_lo"]), float(r["ratio_ci_hi"])),
                    "ratio": float(r["model_ratio"]), "cpu_gap": float(r["cpu_gap_s"]),
                    "model_gap": float(r["model_gap_s"]), "cls": (r["class"], r["cause"])})
    return lv, out


def main():
    if len(sys.argv) < 2 or not os.path.isdir(sys.argv[1]):
        print("usage: classify_crossovers.py DIR [SETTING...] (a testbed study folder)",
              file=sys.stderr)
        sys.exit(2)
    d = sys.argv[1]
    settings = sys.argv[2:] or sorted(
        x for x in os.listdir(d) if os.path.exists(os.path.join(d, x, "fit", "predictions.csv")))
    for name in settings:
        if not os.path.exists(os.path.join(d, name, "fit", "predictions.csv")):
            print(f"classify_crossovers.py: {os.path.join(d, name)} has no fit/predictions.csv "
                  "(run collbench fit there first)", file=sys.stderr)
            sys.exit(2)
    if not settings:
        print(f"classify_crossovers.py: no setting with fit/predictions.csv in {d}",
              file=sys.stderr)
        sys.exit(2)
    for name in settings:
        try:
            lv, rows = classify(os.path.join(d, name))
        except report.results_csv.InputError as e:
            print(f"classify_crossovers.py: {e}", file=sys.stderr)
            sys.exit(2)
        print(f"## {name} ({lv}): {len(rows)} missed crossovers\n")
        counts = {}
        for x in rows:
            counts[x["cls"]] = counts.get(x["cls"], 0) + 1
        print("| class | cause | count |")
        print("|---|---|---|")
        for (k, why), n in sorted(counts.items()):
            print(f"| ({k}) | {why} | {n} |")
        print("\n| collective | p | pair | measured (B) | predicted (B) | CI interval (B) | "
              "nearest size | err a / b | a/b: measured CI, model | CPU gap / model gap (µs) | class |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for x in rows:
            iv = "–" if not x["interval"] else f"{x['interval'][0]:.0f}–{x['interval'][1]:.0f}"
            q = "none" if x["q"] is None else f"{x['q']:.0f}"
            print(f"| {x['coll']} | {x['p']} | {x['pair']} | {x['m']:.0f} | {q} | {iv} | "
                  f"{x['size']} | {100 * x['err'][0]:+.1f}% / {100 * x['err'][1]:+.1f}% | "
                  f"{x['ratio_ci'][0]:.3f}–{x['ratio_ci'][1]:.3f}, {x['ratio']:.3f} | {1e6 * x['cpu_gap']:.0f} / "
                  f"{1e6 * x['model_gap']:.0f} | ({x['cls'][0]}) {x['cls'][1]} |")
        print()


if __name__ == "__main__":
    main()
