#!/usr/bin/python3
"""Regenerates every plot of a collbench results directory from its CSVs alone.

    /usr/bin/python3 scripts/plot.py RESULTS_DIR [--out DIR]

Inputs (as the default study writes them, see README):
  sweep-*.csv                 measured or simulated sweeps (harness CSV schema)
  fit/predictions.csv         model predictions (collbench fit): params = global
                              (in-sample), calibration (out-of-sample), config
  map-*.csv                   crossover maps (collbench map)
  calibration.csv             optional: memcpy_GBps column draws the memcpy ceiling
Outputs PNGs in RESULTS_DIR/plots (or --out). Uses matplotlib's Agg backend only:
no display, no re-measurement. A missing or malformed input is one clear line on
stderr and exit status 1.
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

SWEEP_COLUMNS = ["transport", "collective", "algorithm", "datatype", "op", "placement",
                 "ranks", "bytes", "time_median_us", "ci_lo_us", "ci_hi_us", "busbw_GBps"]
PREDICTION_COLUMNS = ["transport", "collective", "algorithm", "ranks", "bytes",
                      "measured_s", "predicted_s", "rel_err", "params"]
MAP_COLUMNS = ["collective", "ranks", "bytes", "algorithm", "time_s", "best_algorithm", "margin"]


class InputError(Exception):
    pass


def read_csv(path, required):
    if not os.path.isfile(path):
        raise InputError(f"{path}: missing (run the study or collbench first)")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in required if c not in header]
        if missing:
            raise InputError(f"{path}: malformed, missing column(s) {', '.join(missing)}")
        rows = list(reader)
    if not rows:
        raise InputError(f"{path}: malformed, no data rows")
    for i, row in enumerate(rows, start=2):
        for c in required:
            if row[c] is None:
                raise InputError(f"{path}:{i}: malformed, row has too few fields")
    return rows


def num(path, row, column):
    try:
        return float(row[column])
    except (TypeError, ValueError):
        raise InputError(f"{path}: malformed, column {column} holds '{row[column]}', not a number")


def size_label(b, _pos=None):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            v = b / scale
            return f"{v:g} {unit}"
    return f"{b:g} B"


def time_label(us, _pos=None):
    if us >= 1e6:
        return f"{us / 1e6:g} s"
    if us >= 1e3:
        return f"{us / 1e3:g} ms"
    if us >= 1:
        return f"{us:g} µs"
    return f"{us * 1e3:g} ns"


def size_axis(ax, axis="x"):
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
    target.set_major_locator(LogLocator(base=1024))
    target.set_major_formatter(FuncFormatter(size_label))


def colours(names):
    cmap = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    return {n: cmap(i % cmap.N) for i, n in enumerate(sorted(names))}


def load_sweeps(directory):
    sweeps = sorted(f for f in os.listdir(directory) if f.startswith("sweep-") and f.endswith(".csv"))
    if not sweeps:
        raise InputError(f"{directory}: no sweep-*.csv found (nothing to plot)")
    rows = []
    for name in sweeps:
        path = os.path.join(directory, name)
        for r in read_csv(path, SWEEP_COLUMNS):
            r["_path"] = path
            rows.append(r)
    return rows


def load_predictions(directory):
    path = os.path.join(directory, "fit", "predictions.csv")
    preds = read_csv(path, PREDICTION_COLUMNS)
    for r in preds:
        r["_path"] = path
    return preds


def prediction_source(row):
    """global (transport-wide fit), calibration (out-of-sample) or config (per-config line)."""
    return row["params"]


def memcpy_ceiling(directory):
    """{label: GB/s} of the memcpy bandwidths calibrate measured (may be empty)."""
    path = os.path.join(directory, "calibration.csv")
    lines = {}
    if not os.path.isfile(path):
        return lines
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("memcpy_in_cache_GBps"):
                lines["memcpy in cache"] = float(row["memcpy_in_cache_GBps"])
            if row.get("memcpy_GBps"):
                lines["memcpy out of cache"] = float(row["memcpy_GBps"])
    return lines


def panels(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["transport"], r["collective"], int(r["ranks"]))].append(r)
    return dict(sorted(groups.items()))


def grid(n):
    cols = min(n, 4)
    return math.ceil(n / cols), cols


def out_of_place(rows):
    placed = [r for r in rows if r["placement"] == "out"]
    return placed or rows


def by_transport(rows):
    split = defaultdict(list)
    for r in rows:
        split[r["transport"]].append(r)
    return dict(sorted(split.items()))


def finish(fig, title, path):
    fig.suptitle(title)
    # Leave room for the suptitle above the first row of panels.
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_latency(rows, preds, out):
    for transport, trows in by_transport(out_of_place(rows)).items():
        plot_latency_one(transport, trows, preds, out)


def plot_latency_one(transport_name, rows, preds, out):
    groups = panels(rows)
    nr, nc = grid(len(groups))
    fig, axes = plt.subplots(nr, nc, figsize=(5 * nc, 4 * nr), squeeze=False)
    model = defaultdict(list)
    for p in preds:
        if prediction_source(p) == "global":
            model[(p["transport"], p["collective"], int(p["ranks"]), p["algorithm"])].append(
                (num(p["_path"], p, "bytes"), num(p["_path"], p, "predicted_s") * 1e6))
    for ax, ((transport, coll, ranks), group) in zip(axes.flat, groups.items()):
        algos = sorted({r["algorithm"] for r in group})
        colour = colours(algos)
        for algo in algos:
            pts = sorted((num(r["_path"], r, "bytes"), num(r["_path"], r, "time_median_us"),
                          num(r["_path"], r, "ci_lo_us"), num(r["_path"], r, "ci_hi_us"))
                         for r in group if r["algorithm"] == algo)
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            err = [[max(p[1] - p[2], 0) for p in pts], [max(p[3] - p[1], 0) for p in pts]]
            ax.errorbar(xs, ys, yerr=err, fmt="o-", ms=3, lw=1, capsize=2, color=colour[algo],
                        label=algo)
            fitted = sorted(model.get((transport, coll, ranks, algo), []))
            if fitted:
                ax.plot([f[0] for f in fitted], [f[1] for f in fitted], "--", lw=1,
                        color=colour[algo])
        size_axis(ax)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(time_label))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"{coll}, {ranks} ranks ({transport})")
        ax.set_xlabel("message size S (bytes)")
        ax.set_ylabel("median time per operation")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, title="measured (solid), model (dashed)", title_fontsize=7)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    finish(fig, f"Latency vs message size over {transport_name} (error bars: 95% CI of the median)",
           os.path.join(out, f"latency-{transport_name}.png"))


def plot_busbw(rows, ceiling, out):
    for transport, trows in by_transport(out_of_place(rows)).items():
        plot_busbw_one(transport, trows, ceiling, out)


def plot_busbw_one(transport_name, rows, ceiling, out):
    groups = panels(rows)
    nr, nc = grid(len(groups))
    fig, axes = plt.subplots(nr, nc, figsize=(5 * nc, 4 * nr), squeeze=False)
    for ax, ((transport, coll, ranks), group) in zip(axes.flat, groups.items()):
        algos = sorted({r["algorithm"] for r in group})
        colour = colours(algos)
        for algo in algos:
            pts = sorted((num(r["_path"], r, "bytes"), num(r["_path"], r, "busbw_GBps"))
                         for r in group if r["algorithm"] == algo)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3, lw=1,
                    color=colour[algo], label=algo)
        if transport_name != "sim":
            for (label, gbps), style in zip(sorted(ceiling.items()), (":", "--")):
                ax.axhline(gbps, color="black", ls=style, lw=1.2, label=f"{label} {gbps:.1f} GB/s")
        size_axis(ax)
        ax.set_title(f"{coll}, {ranks} ranks ({transport})")
        ax.set_xlabel("message size S (bytes)")
        ax.set_ylabel("bus bandwidth (GB/s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    finish(fig, f"Bus bandwidth vs message size over {transport_name} (nccl-tests busbw factors)",
           os.path.join(out, f"busbw-{transport_name}.png"))


def plot_maps(directory, out):
    maps = sorted(f for f in os.listdir(directory) if f.startswith("map-") and f.endswith(".csv"))
    if not maps:
        raise InputError(f"{directory}: no map-*.csv found (collbench map writes it)")
    written = []
    for name in maps:
        path = os.path.join(directory, name)
        rows = read_csv(path, MAP_COLUMNS)
        cells = {}
        for r in rows:
            key = (int(r["ranks"]), num(path, r, "bytes"))
            cells[key] = (r["best_algorithm"], num(path, r, "margin"))
        ranks = sorted({k[0] for k in cells})
        sizes = sorted({k[1] for k in cells})
        best_names = sorted({v[0] for v in cells.values()})
        colour = colours(best_names)
        margins = [v[1] for v in cells.values()]
        top = max(max(margins), 1e-12)
        img = [[(1, 1, 1)] * len(sizes) for _ in ranks]
        for (rk, sz), (best, margin) in cells.items():
            base = to_rgb(colour[best])
            # Pale = near tie with the runner-up, saturated = clear winner; log
            # scale because margins span from ~0% to several hundred percent.
            shade = 0.2 + 0.8 * min(math.log1p(margin) / math.log1p(top), 1.0)
            img[ranks.index(rk)][sizes.index(sz)] = tuple(1 - shade * (1 - c) for c in base)
        fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(sizes) + 3), max(4, 0.35 * len(ranks) + 2)))
        ax.imshow(img, aspect="auto", origin="lower", interpolation="nearest")
        if len(sizes) * len(ranks) <= 400:
            for (rk, sz), (best, margin) in cells.items():
                ax.text(sizes.index(sz), ranks.index(rk), f"{margin:.0%}", ha="center",
                        va="center", fontsize=6)
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([size_label(s) for s in sizes], rotation=60, fontsize=7)
        ax.set_yticks(range(len(ranks)))
        ax.set_yticklabels([str(r) for r in ranks], fontsize=7)
        ax.set_xlabel("message size S (bytes)")
        ax.set_ylabel("ranks p")
        coll = rows[0]["collective"]
        ax.set_title(f"Best {coll} algorithm per (ranks, size), simulated\n"
                     f"cell text and shade: margin over the runner-up")
        ax.legend(handles=[Patch(color=colour[n], label=n) for n in best_names], fontsize=7,
                  loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.tight_layout()
        target = os.path.join(out, f"crossover-{name[len('map-'):-len('.csv')]}.png")
        fig.savefig(target, dpi=110)
        plt.close(fig)
        written.append(target)
    return written


def plot_prediction_error(preds, out):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5))
    sources = sorted({prediction_source(p) for p in preds})
    colour = colours(sources)
    lo, hi = math.inf, 0.0
    for src in sources:
        sel = [p for p in preds if prediction_source(p) == src]
        meas = [num(p["_path"], p, "measured_s") * 1e6 for p in sel]
        pred = [num(p["_path"], p, "predicted_s") * 1e6 for p in sel]
        rel = [num(p["_path"], p, "rel_err") for p in sel]
        size = [num(p["_path"], p, "bytes") for p in sel]
        ax1.scatter(meas, pred, s=8, alpha=0.6, color=colour[src], label=src)
        ax2.scatter(size, rel, s=8, alpha=0.6, color=colour[src], label=src)
        lo = min(lo, min(meas + pred))
        hi = max(hi, max(meas + pred))
    line = [lo, hi]
    ax1.plot(line, line, "k-", lw=1, label="y = x")
    ax1.fill_between(line, [v * 0.75 for v in line], [v * 1.25 for v in line], color="grey",
                     alpha=0.2, label="±25%")
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    for axis in (ax1.xaxis, ax1.yaxis):
        axis.set_major_formatter(FuncFormatter(time_label))
    ax1.set_xlabel("measured median time")
    ax1.set_ylabel("predicted time")
    ax1.set_title("Measured vs predicted")
    ax1.legend(fontsize=8)
    ax1.grid(True, alpha=0.3)
    size_axis(ax2)
    ax2.axhline(0, color="black", lw=1)
    ax2.axhspan(-0.25, 0.25, color="grey", alpha=0.2)
    ax2.set_xlabel("message size S (bytes)")
    ax2.set_ylabel("relative error (predicted − measured) / measured")
    ax2.set_title("Relative residual vs size (knees show protocol switches)")
    ax2.legend(fontsize=8)
    ax2.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "model-error.png"), dpi=110)
    plt.close(fig)


def plot_crossovers(directory, out):
    """Predicted vs measured crossover size: one point per pair, p and parameter set that
    cross in both (fit/crossovers.csv, kind = pair), log-log with y = x and a 2x band."""
    path = os.path.join(directory, "fit", "crossovers.csv")
    rows = read_csv(path, ["kind", "params", "transport", "ranks", "algo_a", "algo_b",
                           "predicted_crossover_B", "measured_crossover_B"])
    points = defaultdict(list)
    for r in rows:
        if r["kind"] == "pair" and r["predicted_crossover_B"] and r["measured_crossover_B"]:
            points[(r["params"], r["transport"])].append(
                (num(path, r, "measured_crossover_B"), num(path, r, "predicted_crossover_B")))
    fig, ax = plt.subplots(figsize=(7, 6))
    colour = colours([f"{p} {t}" for p, t in points])
    lo, hi = 8.0, 64.0 * 2 ** 20
    for (params, transport), pts in sorted(points.items()):
        label = f"{params} {transport}"
        ax.scatter([m for m, _ in pts], [p for _, p in pts], s=18, alpha=0.7,
                   color=colour[label], label=f"{label} ({len(pts)})")
        lo = min([lo] + [min(m, p) for m, p in pts])
        hi = max([hi] + [max(m, p) for m, p in pts])
    line = [lo, hi]
    ax.plot(line, line, "k-", lw=1, label="y = x")
    ax.fill_between(line, [v / 2 for v in line], [v * 2 for v in line], color="grey", alpha=0.2,
                    label="within 2x")
    size_axis(ax, "x")
    size_axis(ax, "y")
    ax.set_xlabel("measured crossover size (CIs separate on both sides)")
    ax.set_ylabel("predicted crossover size")
    ax.set_title("Crossovers: predicted vs measured" +
                 ("" if points else " (no pair crosses in both)"))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "crossovers.png"), dpi=110)
    plt.close(fig)


def plot_rank_comparison(rows, out):
    """The seeds' 'overall communication' table, measured: one size across rank counts."""
    rows = out_of_place(rows)
    by_coll = defaultdict(list)
    for r in rows:
        by_coll[(r["transport"], r["collective"])].append(r)
    nr, nc = grid(len(by_coll))
    fig, axes = plt.subplots(nr, nc, figsize=(5 * nc, 4 * nr), squeeze=False)
    for ax in axes.flat[len(by_coll):]:
        ax.set_visible(False)
    for ax, ((transport, coll), group) in zip(axes.flat, sorted(by_coll.items())):
        # The largest size measured at every rank count, so bars compare like with like.
        rank_counts = sorted({int(r["ranks"]) for r in group})
        sizes_per_rank = [{num(r["_path"], r, "bytes") for r in group if int(r["ranks"]) == p}
                          for p in rank_counts]
        common = set.intersection(*sizes_per_rank)
        size = max(common) if common else max(sizes_per_rank[0])
        algos = sorted({r["algorithm"] for r in group})
        colour = colours(algos)
        width = 0.8 / max(len(algos), 1)
        for i, algo in enumerate(algos):
            for j, p in enumerate(rank_counts):
                vals = [num(r["_path"], r, "time_median_us") for r in group
                        if r["algorithm"] == algo and int(r["ranks"]) == p
                        and num(r["_path"], r, "bytes") == size]
                if vals:
                    ax.bar(j + i * width, vals[0], width, color=colour[algo],
                           label=algo if j == 0 else None)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rank_counts))])
        ax.set_xticklabels([f"p={p}" for p in rank_counts])
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(time_label))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_ylabel("median time per operation")
        ax.set_title(f"{coll} at S = {size_label(size)} ({transport})")
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    finish(fig, "Algorithms compared at one size across rank counts",
           os.path.join(out, "rank-comparison.png"))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results_dir")
    parser.add_argument("--out", help="where the PNGs go (default RESULTS_DIR/plots)")
    args = parser.parse_args(argv)
    try:
        if not os.path.isdir(args.results_dir):
            raise InputError(f"{args.results_dir}: not a directory")
        rows = load_sweeps(args.results_dir)
        preds = load_predictions(args.results_dir)
        out = args.out or os.path.join(args.results_dir, "plots")
        os.makedirs(out, exist_ok=True)
        plot_latency(rows, preds, out)
        plot_busbw(rows, memcpy_ceiling(args.results_dir), out)
        plot_maps(args.results_dir, out)
        plot_prediction_error(preds, out)
        plot_crossovers(args.results_dir, out)
        plot_rank_comparison(rows, out)
    except InputError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 1
    print(f"plots written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
