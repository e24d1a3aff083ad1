"""The stragglers plot (docs/stragglers.md): the time after the last arrival
against the delay of the late rank(s), one line per algorithm, measured with
its 95% confidence interval and predicted dashed, from the arrival-cases.csv
that `collbench arrival-check` wrote (it computed every figure; this only
draws them). Called by plot.py with matplotlib loaded.
"""
import os
from collections import defaultdict

from results_csv import num, read_csv, size_label

CASE_COLUMNS = ["transport", "collective", "ranks", "bytes", "kind", "delay_us", "algorithm",
                "after_last_us", "after_last_ci_lo_us", "after_last_ci_hi_us",
                "predicted_after_last_us"]
# Where a study keeps it (scripts/study.sh's arrival stage).
STUDY_CASES = os.path.join("arrival", "check", "arrival-cases.csv")


def load_cases(path):
    return read_csv(path, CASE_COLUMNS) if os.path.isfile(path) else []


def plot_arrival(plt, ps, save, path, out, name="arrival.png"):
    """One panel per (transport, collective, p, size, pattern kind) of the
    arrival-cases.csv at `path`; None when there is none."""
    from matplotlib.lines import Line2D
    rows = load_cases(path)
    if not rows:
        return None
    panels = defaultdict(lambda: defaultdict(list))
    for r in rows:
        key = (r["transport"], r["collective"], int(num(path, r, "ranks")),
               int(num(path, r, "bytes")), r["kind"])
        panels[key][r["algorithm"]].append(
            tuple(num(path, r, c) for c in ("delay_us", "after_last_us", "after_last_ci_lo_us",
                                            "after_last_ci_hi_us", "predicted_after_last_us")))
    fig, axes = ps.figure(plt, len(panels))
    names = set()
    for ax, (key, algos) in zip(axes.flat, sorted(panels.items())):
        transport, coll, p, size, kind = key
        for algo, points in sorted(algos.items()):
            names.add(algo)
            points.sort()
            x = [pt[0] for pt in points]
            med = [pt[1] for pt in points]
            err = [[pt[1] - pt[2] for pt in points], [pt[3] - pt[1] for pt in points]]
            colour, marker = ps.style(algo)
            ax.errorbar(x, med, yerr=err, color=colour, marker=marker, ms=4, lw=1.2,
                        capsize=2)
            ax.plot(x, [pt[4] for pt in points], color=colour, ls="--", lw=1)
        ax.set_xscale("log")
        ps.time_axis(ax, "x")
        ps.time_axis(ax, "y")
        ax.set_xlabel(f"delay ({kind})", fontsize=8)
        ax.set_ylabel("time after the last arrival", fontsize=8)
        ax.set_title(f"{coll}, {transport}, p={p}, {size_label(size)}", fontsize=8)
        ax.grid(True, alpha=0.3)
    handles = [Line2D([], [], color=ps.colour(n), marker=ps.style(n)[1], ms=5, lw=1.2, label=n)
               for n in ps.sort_algorithms(names)]
    handles.append(Line2D([], [], color="grey", ls="--", lw=1, label="predicted"))
    ps.finish(plt, fig, "Stragglers: time after the last arrival vs delay "
                        "(measured, 95% CI; predicted dashed)", handles, "algorithm")
    return save(fig, os.path.join(out, name))
