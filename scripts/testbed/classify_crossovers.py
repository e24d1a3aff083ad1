#!/usr/bin/python3
"""Why each measured crossover the model misses (issue #10's "within 2x in
size") is missed, by rules read from the measurement, not from the miss.

  /usr/bin/python3 scripts/testbed/classify_crossovers.py DIR [SETTING...]

DIR is a testbed study folder as report.py reads it (each setting with
sweep.csv, probe.csv, setting.txt, fit/predictions.csv, fit/crossovers.csv).
The crossovers judged are report.py's: the richest calibrated level with flight,
the measured crossovers `collbench fit --network` puts in its link-limited
scope and does not predict within its factor (crossovers.csv: cpu_limited 0,
verdict other than within). Each miss gets the first class whose rule holds,
in this order:

 (i)   ill-conditioned by the measurement, either
       "interval": the prediction lies inside the measured crossover's
       interval, [last size below it where the old winner is significantly
       faster, first size above it where the new one is]
       (crossovers.csv's measured_crossover_lo_B/hi_B, `collbench fit`'s rule:
       where the old and the new winner are significantly faster; read by
       report.measured_interval): the CSV cannot place the crossing more
       finely; or
       "parallel": at both measured sizes adjacent to the crossover the
       model's ratio T_a / T_b lies inside the measured ratio's interval
       [ci_lo_a / ci_hi_b, ci_hi_a / ci_lo_b]: the model agrees with the
       measurement there to its resolution, and the two curves are so nearly
       parallel that this residual moves the crossing more than 2x (or off
       the measured range: "not predicted").
 (ii)  CPU-limited rank count: p > cores, and at the measured size nearest the
       crossover (log scale) the CPU time the model does not charge for the
       difference in rounds, |rounds_a - rounds_b| x probe alpha x (p/cores - 1)
       (a round's stack overhead, stretched by ranks waiting for a core), is at
       least the model's predicted gap |T_a - T_b| there: sharing cores alone
       can move the crossing that far.
 (iii) a cost the model lacks: at that size the model's errors for the two
       algorithms differ by more than the measurement's relative CI widths
       added, so the model misprices one against the other. Named by cause:
       "incast" when one side is naive at p >= 3 and >= 256 KiB and naive is
       the one under-predicted (p - 1 flows into one shaped downlink);
       "latency count" below 64 KiB (a latency-bound size: the rounds the
       model charges vs the latencies measured, report.md's latency table).
       (iii) needs one of these named causes.
 (iv)  other: the model misprices one algorithm against the other (its ratio
       is outside the measured ratio's interval) with no cause named above.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (report.py's readers and its levels)

INCAST_MIN_B = 256 * 1024
LATENCY_MAX_B = 64 * 1024


def load(d):
    st = report.read_setting(d)
    probe = report.read_csv(os.path.join(d, "probe.csv"))[0]
    meas = report.measured_times(report.read_csv(os.path.join(d, "sweep.csv")))
    preds = report.read_csv(os.path.join(d, "fit", "predictions.csv"))
    xcsv = report.read_csv(os.path.join(d, "fit", "crossovers.csv"))
    return st, float(probe["alpha_s"]), meas, preds, xcsv


def level_of(d, preds):
    """report.py's main calibrated column (its last level)."""
    return report.report_levels({r["params"] for r in preds}, report.clocked_levels(d))[0][-1]



def nearest_size(meas, c, p, a, b, m):
    return min(report.common_sizes(meas, c, p, a, b), key=lambda s: abs(math.log(s / m)))


def adjacent_sizes(meas, c, p, a, b, m):
    """The measured sizes on either side of m (one if m is a measured size)."""
    sizes = report.common_sizes(meas, c, p, a, b)
    below = [s for s in sizes if s <= m]
    above = [s for s in sizes if s >= m]
    return sorted(set(below[-1:] + above[:1]))


def model_within_ratio_ci(meas, pred, c, p, a, b, s):
    """Whether the model's T_a / T_b at size s lies inside the measured
    ratio's interval, from the two 95% CIs."""
    (_, alo, ahi), (_, blo, bhi) = meas[(c, p, s, a)], meas[(c, p, s, b)]
    ratio = pred[(c, p, s, a)] / pred[(c, p, s, b)]
    return alo / bhi <= ratio <= ahi / blo


def classify(d):
    st, overhead, meas, preds, xcsv = load(d)
    cores = st.get("cores", 2)
    links = report.link_rows(d)
    lv = level_of(d, preds)
    pred = {(r["collective"], int(r["ranks"]), int(r["bytes"]), r["algorithm"]):
            float(r["predicted_s"]) for r in preds if r["params"] == lv}
    out = []
    for r in report.scoped_crossovers(xcsv, lv):
        if r["verdict"] == "within":
            continue
        c, p = r["collective"], int(r["ranks"])
        m = float(r["measured_crossover_B"])
        q = float(r["predicted_crossover_B"]) if r["predicted_crossover_B"] else None
        a, b = r["algo_a"].split("=")[0], r["algo_b"].split("=")[0]
        iv = report.measured_interval(r)
        s = nearest_size(meas, c, p, a, b, m)
        ta, tb = meas[(c, p, s, a)], meas[(c, p, s, b)]
        pa, pb = pred[(c, p, s, a)], pred[(c, p, s, b)]
        ra, rb = (float(links[(c, p, s, x)]["rounds"]) for x in (a, b))
        cpu_gap = abs(ra - rb) * overhead * max(0.0, p / cores - 1)
        err_a, err_b = pa / ta[0] - 1, pb / tb[0] - 1
        ratio_ci = (ta[1] / tb[2], ta[2] / tb[1])
        naive_under = ((a == "naive" and err_a < err_b) or (b == "naive" and err_b < err_a))
        if iv and q is not None and iv[0] <= q <= iv[1]:
            cls = "i", "interval"
        elif all(model_within_ratio_ci(meas, pred, c, p, a, b, x)
                 for x in adjacent_sizes(meas, c, p, a, b, m)):
            cls = "i", "parallel"
        elif p > cores and cpu_gap >= abs(pa - pb):
            cls = "ii", "cpu"
        elif naive_under and p >= 3 and s >= INCAST_MIN_B:
            cls = "iii", "incast"
        elif s < LATENCY_MAX_B:
            cls = "iii", "latency count"
        else:
            cls = "iv", "other"
        out.append({"coll": c, "p": p, "pair": f"{r['algo_a']} / {r['algo_b']}", "m": m, "q": q,
                    "interval": iv, "size": s, "err": (err_a, err_b), "ratio_ci": ratio_ci,
                    "ratio": pa / pb, "cpu_gap": cpu_gap, "model_gap": abs(pa - pb), "cls": cls})
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
        lv, rows = classify(os.path.join(d, name))
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
