#!/usr/bin/python3
"""Draws the plots of collbench results from their CSVs alone (nothing is re-measured).

    /usr/bin/python3 scripts/plot.py RESULTS_DIR [--out DIR]
    /usr/bin/python3 scripts/plot.py FILE.csv [--out DIR]       (also: collbench plot)

RESULTS_DIR is a study directory (scripts/study.sh) or any directory holding
results CSVs of `collbench run`. A study directory may also hold:
  fit/predictions.csv, fit/fit.csv   model lines and the model-error plot (collbench fit)
  fit/crossovers.csv                 predicted vs measured crossover sizes (collbench fit)
  map-*.csv                          crossover maps (collbench map)
  calibration.csv                    memcpy ceilings on the busbw plots (collbench calibrate)
FILE.csv is one results CSV of `collbench run` or one map CSV of `collbench map`.

Writes PNGs into DIR (default: plots/ next to the input): latency-<transport>,
busbw-<transport>, rank-comparison (only when more than one rank count was
run), crossover-<collective>, model-error, crossovers. Every algorithm keeps one colour and
marker in every plot. A missing or malformed input is one line on stderr and
exit status 1. Needs matplotlib (Debian's python3-matplotlib under /usr/bin/python3).
"""
import argparse
import math
import os
import sys
import zlib
from collections import defaultdict

from results_csv import (InputError, MAP_COLUMNS, find_maps, kind_of, load_fit_params,
                         load_predictions, load_sweep_files, load_sweeps, memcpy_ceiling, num,
                         params_text, read_csv, size_label, time_label)

plt = None  # matplotlib.pyplot, imported by load_matplotlib() once arguments are parsed

# One colour and marker per algorithm in every plot, so "ring" is the same blue
# in the latency, bandwidth, crossover and model plots of every run.
STYLE = {
    "ring": ("#1f77b4", "o"), "rhd": ("#ff7f0e", "s"), "butterfly": ("#2ca02c", "^"),
    "tree": ("#d62728", "v"), "dbtree": ("#9467bd", "D"), "naive": ("#8c564b", "P"),
    "ps": ("#e377c2", "X"), "bruck": ("#7f7f7f", "*"), "pairwise": ("#bcbd22", "h"),
    "mpi": ("#000000", "o"), "nccl": ("#17becf", "d"),
}
EXTRA = [("#aec7e8", "o"), ("#ffbb78", "s"), ("#98df8a", "^"), ("#ff9896", "v"),
         ("#c5b0d5", "D"), ("#c49c94", "P"), ("#f7b6d2", "X"), ("#dbdb8d", "h")]


def style(name):
    """(colour, marker) of an algorithm; names outside STYLE get a stable extra."""
    return STYLE.get(name) or EXTRA[zlib.crc32(name.encode()) % len(EXTRA)]


def colour(name):
    return style(name)[0]


def load_matplotlib():
    global plt
    try:
        import matplotlib
    except ImportError:
        raise InputError("needs matplotlib, which this python lacks: run it with /usr/bin/python3 "
                         "(apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    plt = pyplot


def size_axis(ax, axis="x"):
    from matplotlib.ticker import FuncFormatter, LogLocator
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
    target.set_major_locator(LogLocator(base=1024))
    target.set_major_formatter(FuncFormatter(size_label))


def time_axis(ax, log=True):
    from matplotlib.ticker import FuncFormatter, NullFormatter
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(FuncFormatter(time_label))


def algorithm_handles(names):
    from matplotlib.lines import Line2D
    return [Line2D([], [], color=colour(n), marker=style(n)[1], ms=5, lw=1.2, label=n)
            for n in sort_algorithms(names)]


def sort_algorithms(names):
    """Schedules alphabetically, then the library baselines."""
    return sorted(set(names), key=lambda n: (n in ("mpi", "nccl"), n))


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


def simulated(transport):
    return transport == "sim"


def figure(n_panels):
    nr, nc = grid(n_panels)
    fig, axes = plt.subplots(nr, nc, figsize=(4.6 * nc + 1.6, 3.8 * nr + 0.6), squeeze=False)
    for ax in axes.flat[n_panels:]:
        ax.set_visible(False)
    return fig, axes


def finish(fig, title, path, handles=None, legend_title=None):
    """Suptitle, one legend for the figure to the right of the panels (never on
    the data), save, close."""
    fig.suptitle(title, fontsize=11)
    right = 1.0
    if handles:
        width = fig.get_size_inches()[0]
        right = 1 - 1.6 / width
        fig.legend(handles=handles, loc="center left", bbox_to_anchor=(right, 0.5), fontsize=8,
                   title=legend_title, title_fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, right, 0.93))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def model_note(fit, transport, have_lines):
    if not have_lines:
        return ""
    p = fit.get(("global", transport))
    used = f": {params_text(*p)}" if p else ""
    return f"\ndashed: α-β-γ model with the global fit's parameters (in-sample){used}"


def plot_latency(rows, preds, fit, out):
    return [plot_latency_one(t, trows, preds, fit, out)
            for t, trows in by_transport(out_of_place(rows)).items()]


def plot_latency_one(transport_name, rows, preds, fit, out):
    from matplotlib.lines import Line2D
    groups = panels(rows)
    fig, axes = figure(len(groups))
    model = defaultdict(list)
    for p in preds:
        if p["params"] == "global":
            model[(p["transport"], p["collective"], int(p["ranks"]), p["algorithm"])].append(
                (num(p["_path"], p, "bytes"), num(p["_path"], p, "predicted_s") * 1e6))
    sim = simulated(transport_name)
    names, have_model = set(), False
    for ax, ((transport, coll, ranks), group) in zip(axes.flat, groups.items()):
        for algo in sort_algorithms(r["algorithm"] for r in group):
            names.add(algo)
            c, marker = style(algo)
            pts = sorted((num(r["_path"], r, "bytes"), num(r["_path"], r, "time_median_us"),
                          num(r["_path"], r, "ci_lo_us"), num(r["_path"], r, "ci_hi_us"))
                         for r in group if r["algorithm"] == algo)
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            if sim:  # computed, not sampled: no interval to draw
                ax.plot(xs, ys, "-", marker=marker, ms=3, lw=1, color=c)
            else:
                err = [[max(p[1] - p[2], 0) for p in pts], [max(p[3] - p[1], 0) for p in pts]]
                ax.errorbar(xs, ys, yerr=err, fmt="-", marker=marker, ms=3, lw=1, capsize=2,
                            color=c)
            fitted = sorted(model.get((transport, coll, ranks, algo), []))
            if fitted:
                have_model = True
                ax.plot([f[0] for f in fitted], [f[1] for f in fitted], "--", lw=1, color=c)
        size_axis(ax)
        time_axis(ax)
        ax.set_title(f"{coll}, {ranks} ranks ({transport})", fontsize=10)
        ax.set_xlabel("message size S (bytes)")
        ax.set_ylabel("simulated time per operation" if sim else "median time per operation")
        ax.grid(True, which="major", alpha=0.3)
    handles = algorithm_handles(names)
    if have_model:
        handles.append(Line2D([], [], color="grey", ls="--", lw=1, label="model (dashed)"))
    if sim:
        title = f"Simulated time vs message size ({transport_name}: computed, no samples)"
    else:
        title = (f"Measured latency vs message size over {transport_name} "
                 "(median; error bars: its 95% CI)")
    return finish(fig, title + model_note(fit, transport_name, have_model),
                  os.path.join(out, f"latency-{transport_name}.png"), handles,
                  "simulated" if sim else "measured")


def plot_busbw(rows, ceiling, out):
    return [plot_busbw_one(t, trows, ceiling, out)
            for t, trows in by_transport(out_of_place(rows)).items()]


def plot_busbw_one(transport_name, rows, ceiling, out):
    groups = panels(rows)
    fig, axes = figure(len(groups))
    sim = simulated(transport_name)
    names = set()
    # This machine's memcpy says nothing about a simulated network.
    lines = {} if sim else ceiling
    for ax, ((transport, coll, ranks), group) in zip(axes.flat, groups.items()):
        top = 0.0
        for algo in sort_algorithms(r["algorithm"] for r in group):
            names.add(algo)
            c, marker = style(algo)
            pts = sorted((num(r["_path"], r, "bytes"), num(r["_path"], r, "busbw_GBps"))
                         for r in group if r["algorithm"] == algo)
            top = max(top, max(p[1] for p in pts))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", marker=marker, ms=3, lw=1,
                    color=c)
        # The axis fits the data; a ceiling above it is named at the top edge.
        ylim = top * 1.15 if top > 0 else 1.0
        ax.set_ylim(0, ylim)
        off = []
        for (label, gbps), ls in zip(sorted(lines.items()), (":", "--")):
            text = f"{label} {gbps:.3g} GB/s"
            if gbps <= ylim:
                ax.axhline(gbps, color="black", ls=ls, lw=1.1)
                ax.annotate(text, xy=(0.01, gbps), xycoords=("axes fraction", "data"),
                            xytext=(0, 2), textcoords="offset points", fontsize=7, va="bottom")
            else:
                off.append(f"↑ {text} (off scale)")
        if off:
            ax.text(0.01, 0.98, "\n".join(off), transform=ax.transAxes, fontsize=7, va="top")
        size_axis(ax)
        ax.set_title(f"{coll}, {ranks} ranks ({transport})", fontsize=10)
        ax.set_xlabel("message size S (bytes)")
        ax.set_ylabel(("simulated " if sim else "") + "bus bandwidth (GB/s)")
        ax.grid(True, alpha=0.3)
    kind = "simulated" if sim else "measured"
    return finish(fig, f"Bus bandwidth vs message size over {transport_name}, {kind} "
                       "(nccl-tests busbw factors)",
                  os.path.join(out, f"busbw-{transport_name}.png"), algorithm_handles(names),
                  kind)


def plot_map(path, out):
    from matplotlib.colors import to_rgb
    from matplotlib.patches import Patch
    rows = read_csv(path, MAP_COLUMNS)
    cells = {}
    for r in rows:
        key = (int(r["ranks"]), num(path, r, "bytes"))
        cells[key] = (r["best_algorithm"], num(path, r, "margin") if r["margin"] else 0.0)
    ranks = sorted({k[0] for k in cells})
    sizes = sorted({k[1] for k in cells})
    best_names = sort_algorithms(v[0] for v in cells.values() if v[0])
    margins = [v[1] for v in cells.values()]
    top = max(max(margins), 1e-12)
    img = [[(1, 1, 1)] * len(sizes) for _ in ranks]
    for (rk, sz), (best, margin) in cells.items():
        if not best:
            continue
        base = to_rgb(colour(best))
        # Saturated = clear winner, lighter = near tie; never so pale that two
        # algorithms trading places (ring and rhd at a 0-3% margin) look alike.
        shade = 0.5 + 0.5 * min(math.log1p(margin) / math.log1p(top), 1.0)
        img[ranks.index(rk)][sizes.index(sz)] = tuple(1 - shade * (1 - c) for c in base)
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(sizes) + 3.5),
                                    max(4, 0.35 * len(ranks) + 2.4)))
    ax.imshow(img, aspect="auto", origin="lower", interpolation="nearest")
    texts = len(sizes) * len(ranks) <= 400
    if texts:
        for (rk, sz), (best, margin) in cells.items():
            if best:
                label = ("tie" if margin < 5e-4 else
                         f"{margin:.0%}" if margin >= 0.1 else f"{margin:.1%}")
                ax.text(sizes.index(sz), ranks.index(rk), label, ha="center", va="center",
                        fontsize=5.5)
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([size_label(s) for s in sizes], rotation=60, fontsize=7)
    ax.set_yticks(range(len(ranks)))
    ax.set_yticklabels([str(r) for r in ranks], fontsize=7)
    ax.set_xlabel("message size S (bytes)")
    ax.set_ylabel("ranks p")
    coll = rows[0]["collective"]
    first = rows[0]
    params = ""
    if all(first.get(c) not in (None, "") for c in ("alpha_s", "beta_s_per_B", "gamma_s_per_B")):
        params = " with " + params_text(float(first["alpha_s"]), float(first["beta_s_per_B"]),
                                        float(first["gamma_s_per_B"]))
    how = ("colour: best algorithm; cell text: its margin over the runner-up "
           "(runner-up time / best time − 1); lighter = nearer a tie") if texts else \
          "colour: best algorithm; lighter = nearer a tie with the runner-up"
    ax.set_title(f"Best {coll} algorithm per (ranks, size), simulated{params}\n{how}",
                 fontsize=9)
    ax.legend(handles=[Patch(color=colour(n), label=n) for n in best_names], fontsize=8,
              loc="upper left", bbox_to_anchor=(1.01, 1.0), title="best", title_fontsize=8)
    fig.tight_layout()
    target = os.path.join(out, f"crossover-{os.path.basename(path)[:-len('.csv')]}.png"
                          .replace("crossover-map-", "crossover-"))
    fig.savefig(target, dpi=110)
    plt.close(fig)
    return target


MODEL_NAMES = {"global": "global fit (in-sample)", "calibration": "calibration (out-of-sample)"}


def plot_prediction_error(preds, fit, out):
    """One column per model (the per-configuration line fit is not a model of the
    algorithms, so it is left out): measured vs predicted, and residual vs size."""
    models = [m for m in ("global", "calibration") if any(p["params"] == m for p in preds)]
    models += sorted({p["params"] for p in preds} - {"config", *models})
    if not models:
        return None
    fig, axes = plt.subplots(2, len(models), figsize=(5.2 * len(models) + 1.6, 9), squeeze=False)
    names = set()
    for col, m in enumerate(models):
        ax1, ax2 = axes[0][col], axes[1][col]
        sel = [p for p in preds if p["params"] == m]
        lo, hi = math.inf, 0.0
        for algo in sort_algorithms(p["algorithm"] for p in sel):
            names.add(algo)
            c, marker = style(algo)
            pts = [p for p in sel if p["algorithm"] == algo]
            meas = [num(p["_path"], p, "measured_s") * 1e6 for p in pts]
            pred = [num(p["_path"], p, "predicted_s") * 1e6 for p in pts]
            ax1.scatter(meas, pred, s=9, alpha=0.7, color=c, marker=marker)
            ax2.scatter([num(p["_path"], p, "bytes") for p in pts],
                        [num(p["_path"], p, "rel_err") for p in pts], s=9, alpha=0.7, color=c,
                        marker=marker)
            lo, hi = min(lo, *meas, *pred), max(hi, *meas, *pred)
        line = [lo, hi]
        ax1.plot(line, line, "k-", lw=1)
        ax1.fill_between(line, [v * 0.75 for v in line], [v * 1.25 for v in line], color="grey",
                         alpha=0.2)
        ax1.set_xscale("log")
        time_axis(ax1)
        from matplotlib.ticker import FuncFormatter
        ax1.xaxis.set_major_formatter(FuncFormatter(time_label))
        transports = sorted({p["transport"] for p in sel})
        used = "; ".join(f"{t}: {params_text(*fit[(m, t)])}" for t in transports
                         if (m, t) in fit)
        ax1.set_title(f"{MODEL_NAMES.get(m, m)}\n{used}" if used else MODEL_NAMES.get(m, m),
                      fontsize=9)
        ax1.set_xlabel("measured median time")
        ax1.set_ylabel("predicted time (line: y = x, band: ±25%)")
        ax1.grid(True, alpha=0.3)
        size_axis(ax2)
        ax2.axhline(0, color="black", lw=1)
        ax2.axhspan(-0.25, 0.25, color="grey", alpha=0.2)
        ax2.set_xlabel("message size S (bytes)")
        ax2.set_ylabel("(predicted − measured) / measured")
        ax2.set_title(f"{MODEL_NAMES.get(m, m)}: residual vs size", fontsize=9)
        ax2.grid(True, alpha=0.3)
    return finish(fig, "Model error, each model on its own (knees in the residual show protocol "
                       "switches)", os.path.join(out, "model-error.png"),
                  algorithm_handles(names), "algorithm")


def plot_crossovers(directory, out):
    """Predicted vs measured crossover size: one point per pair, p and parameter set that
    cross in both (fit/crossovers.csv, kind = pair), log-log with y = x and a 2x band.
    None when the directory has no fit."""
    path = os.path.join(directory, "fit", "crossovers.csv")
    if not os.path.exists(path):
        return None
    rows = read_csv(path, ["kind", "params", "transport", "ranks", "algo_a", "algo_b",
                           "predicted_crossover_B", "measured_crossover_B"])
    points = defaultdict(list)
    for r in rows:
        if r["kind"] == "pair" and r["predicted_crossover_B"] and r["measured_crossover_B"]:
            points[(r["params"], r["transport"])].append(
                (num(path, r, "measured_crossover_B"), num(path, r, "predicted_crossover_B")))
    fig, ax = plt.subplots(figsize=(7, 6))
    cmap = plt.get_cmap("tab10")
    lo, hi = 8.0, 64.0 * 2 ** 20
    for i, ((params, transport), pts) in enumerate(sorted(points.items())):
        label = f"{MODEL_NAMES.get(params, params)}, {transport}"
        ax.scatter([m for m, _ in pts], [p for _, p in pts], s=18, alpha=0.7,
                   color=cmap(i % cmap.N), label=f"{label} ({len(pts)})")
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
    target = os.path.join(out, "crossovers.png")
    fig.savefig(target, dpi=110)
    plt.close(fig)
    return target


def plot_rank_comparison(rows, out):
    """One size across rank counts, for each (transport, collective) run at more
    than one rank count; None when there is none (a bar per p = 1 says nothing)."""
    from matplotlib.patches import Patch
    rows = out_of_place(rows)
    by_coll = defaultdict(list)
    for r in rows:
        by_coll[(r["transport"], r["collective"])].append(r)
    by_coll = {k: v for k, v in sorted(by_coll.items())
               if len({int(r["ranks"]) for r in v}) > 1}
    target = os.path.join(out, "rank-comparison.png")
    if not by_coll:
        if os.path.exists(target):
            os.remove(target)  # a stale one from an earlier run would mislead
        return None
    fig, axes = figure(len(by_coll))
    names = set()
    for ax, ((transport, coll), group) in zip(axes.flat, by_coll.items()):
        # The largest size measured at every rank count, so bars compare like with like.
        rank_counts = sorted({int(r["ranks"]) for r in group})
        sizes_per_rank = [{num(r["_path"], r, "bytes") for r in group if int(r["ranks"]) == p}
                          for p in rank_counts]
        common = set.intersection(*sizes_per_rank)
        size = max(common) if common else max(sizes_per_rank[0])
        algos = sort_algorithms(r["algorithm"] for r in group)
        width = 0.8 / max(len(algos), 1)
        for i, algo in enumerate(algos):
            for j, p in enumerate(rank_counts):
                vals = [num(r["_path"], r, "time_median_us") for r in group
                        if r["algorithm"] == algo and int(r["ranks"]) == p
                        and num(r["_path"], r, "bytes") == size]
                if vals:
                    names.add(algo)
                    ax.bar(j + i * width, vals[0], width, color=colour(algo))
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rank_counts))])
        ax.set_xticklabels([f"p={p}" for p in rank_counts])
        time_axis(ax, log=False)  # bars start at zero: a linear axis
        ax.tick_params(labelleft=True, labelbottom=True)
        ax.set_ylabel(("simulated" if simulated(transport) else "median") + " time per operation")
        ax.set_title(f"{coll} at S = {size_label(size)} ({transport})", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    handles = [Patch(color=colour(n), label=n) for n in sort_algorithms(names)]
    return finish(fig, "Algorithms compared at one size across rank counts", target, handles,
                  "algorithm")


def plot_directory(directory, out):
    sweeps = load_sweeps(directory)
    preds = load_predictions(directory)
    fit = load_fit_params(directory)
    written = plot_latency(sweeps, preds, fit, out)
    written += plot_busbw(sweeps, memcpy_ceiling(directory), out)
    written += [plot_map(p, out) for p in find_maps(directory)]
    written.append(plot_prediction_error(preds, fit, out) if preds else None)
    written.append(plot_crossovers(directory, out))
    written.append(plot_rank_comparison(sweeps, out))
    return [w for w in written if w]


def plot_file(path, out):
    kind = kind_of(path)
    if kind == "map":
        return [plot_map(path, out)]
    if kind != "sweep":
        raise InputError(f"{path}: neither a results CSV of collbench run nor a map CSV of "
                         "collbench map (see harness/report/CSV.md)")
    rows = load_sweep_files([path])
    written = plot_latency(rows, [], {}, out) + plot_busbw(rows, {}, out)
    written.append(plot_rank_comparison(rows, out))
    return [w for w in written if w]


def main(argv):
    parser = argparse.ArgumentParser(
        prog="plot.py", description=__doc__.split("\n\n")[0],
        epilog="Writes PNGs; prints where to on stderr. Exit status 1 on a missing or "
               "malformed input.")
    parser.add_argument("input", metavar="RESULTS_DIR|FILE.csv",
                        help="a study/results directory, or one results or map CSV")
    parser.add_argument("--out", help="where the PNGs go (default: plots/ next to the input)")
    args = parser.parse_args(argv)
    try:
        if os.path.isdir(args.input):
            out = args.out or os.path.join(args.input, "plots")
        elif os.path.isfile(args.input):
            out = args.out or os.path.join(os.path.dirname(args.input) or ".", "plots")
        else:
            raise InputError(f"{args.input}: no such file or directory")
        load_matplotlib()
        os.makedirs(out, exist_ok=True)
        if os.path.isdir(args.input):
            written = plot_directory(args.input, out)
        else:
            written = plot_file(args.input, out)
    except InputError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 1
    print(f"plots written to {out}: {', '.join(os.path.basename(w) for w in written)}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
