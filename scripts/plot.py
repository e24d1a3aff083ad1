#!/usr/bin/python3
"""Draws the plots of collbench results from their CSVs alone (nothing is re-measured).

    /usr/bin/python3 scripts/plot.py RESULTS_DIR [--out DIR]
    /usr/bin/python3 scripts/plot.py FILE.csv [--out DIR]       (also: collbench plot)

RESULTS_DIR is a study directory (scripts/study.sh), a testbed setting, or any
directory holding results CSVs of `collbench run`. It may also hold:
  winners.csv                        measured winners per cell (collbench recommend)
  fit/predictions.csv, fit/fit.csv   model lines and the model-error plot (collbench fit)
  fit/summary.csv                    the levels the plots show (shown_level rows), the
                                     bands of the model-error and crossover plots
                                     (error_band, crossover_band rows)
  fit/crossovers.csv                 predicted vs measured crossover sizes (collbench fit)
  arrival/check/arrival-cases.csv    time after the last arrival vs delay (collbench arrival-check)
  map-*.csv                          simulated winners maps (collbench map)
  calibration.csv                    memcpy ceilings on the busbw plots (collbench calibrate)
FILE.csv is one results CSV of `collbench run` or one map CSV of `collbench map`.

Writes PNGs into DIR (default: plots/ next to the input): latency-<transport>,
busbw-<transport>, winners-<transport> (from winners.csv), rank-comparison (only
when more than one rank count was run), crossover-<collective> (from map CSVs),
model-error, crossovers, arrival. Every algorithm keeps one colour and marker in every
plot (plot_style.py). Each PNG is written whole or not at all; a destination
that is a symbolic link or not a regular file is refused. Bad input: one line
on stderr, exit status 2; a failed write (full disk): exit 4. Needs matplotlib
(Debian's python3-matplotlib under /usr/bin/python3).
"""
import argparse
import math
import os
import sys
from collections import defaultdict

import plot_arrival
from output_file import prepare_directory, remove_output, write_atomically
from results_csv import (InputError, MAP_COLUMNS, find_maps, kind_of, load_fit_params,
                         load_predictions, load_sweep_files, load_sweeps, memcpy_ceiling, num,
                         params_text, read_csv)

plt = None  # matplotlib.pyplot, imported by load_matplotlib() once arguments are parsed
ps = None  # plot_style, which needs matplotlib too

WINNER_COLUMNS = ["transport", "collective", "datatype", "ranks", "bytes", "algorithm",
                  "tied_with", "source"]
CROSSOVER_COLUMNS = ["kind", "params", "transport", "collective", "ranks", "algo_a", "algo_b",
                     "predicted_crossover_B", "measured_crossover_B"]
MODEL_NAMES = {"global": "global fit (in-sample)", "calibration": "calibration (out-of-sample)"}


def load_matplotlib():
    global plt, ps
    try:
        import matplotlib
    except ImportError:
        raise InputError("needs matplotlib, which this python lacks: run it with /usr/bin/python3 "
                         "(apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    import plot_style
    plt, ps = pyplot, plot_style


def save(fig, path):
    """Writes the figure to path as PNG through output_file (whole or not at all)."""
    try:
        write_atomically(path, lambda f: fig.savefig(f, format="png", dpi=ps.DPI))
    finally:
        plt.close(fig)
    return path


def algorithm_handles(names):
    from matplotlib.lines import Line2D
    return [Line2D([], [], color=ps.colour(n), marker=ps.style(n)[1], ms=5, lw=1.2, label=n)
            for n in ps.sort_algorithms(names)]


def patch_handles(names):
    from matplotlib.patches import Patch
    return [Patch(color=ps.colour(n), label=n) for n in ps.sort_algorithms(names)]


def panels(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["transport"], r["collective"], int(float(r["ranks"])))].append(r)
    return dict(sorted(groups.items()))


def out_of_place(rows):
    placed = [r for r in rows if r["placement"] == "out"]
    return placed or rows


def by_transport(rows):
    split = defaultdict(list)
    for r in rows:
        split[r["transport"]].append(r)
    return dict(sorted(split.items()))


def timed(rows):
    """Rows with a median time (a skipped simulated case has none)."""
    return [r for r in rows if r["time_median_us"] not in ("", None)]


def simulated(transport):
    return transport == "sim"


def model_note(fit, transport, have_lines):
    if not have_lines:
        return ""
    p = fit.get(("global", transport))
    used = f": {params_text(*p)}" if p else ""
    return f"\ndashed: α-β-γ model with the global fit's parameters (in-sample){used}"


def size_range(values):
    return min(values), max(values)


def plot_latency(rows, preds, fit, out):
    return [plot_latency_one(t, trows, preds, fit, out)
            for t, trows in by_transport(timed(out_of_place(rows))).items()]


def plot_latency_one(transport_name, rows, preds, fit, out):
    from matplotlib.lines import Line2D
    groups = panels(rows)
    fig, axes = ps.figure(plt, len(groups))
    model = defaultdict(list)
    for p in preds:
        if p["params"] == "global":
            model[(p["transport"], p["collective"], int(float(p["ranks"])), p["algorithm"])].append(
                (num(p["_path"], p, "bytes"), num(p["_path"], p, "predicted_s") * 1e6))
    sim = simulated(transport_name)
    names, have_model = set(), False
    for ax, ((transport, coll, ranks), group) in zip(axes.flat, groups.items()):
        sizes = []
        for algo in ps.sort_algorithms(r["algorithm"] for r in group):
            names.add(algo)
            c, marker = ps.style(algo)
            pts = sorted((num(r["_path"], r, "bytes"), num(r["_path"], r, "time_median_us"),
                          r["ci_lo_us"], r["ci_hi_us"])
                         for r in group if r["algorithm"] == algo)
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            sizes += xs
            have_ci = all(p[2] not in ("", None) and p[3] not in ("", None) for p in pts)
            if sim or not have_ci:  # computed, not sampled: no interval to draw
                ax.plot(xs, ys, "-", marker=marker, ms=3, lw=1, color=c)
            else:
                err = [[max(p[1] - float(p[2]), 0) for p in pts],
                       [max(float(p[3]) - p[1], 0) for p in pts]]
                ax.errorbar(xs, ys, yerr=err, fmt="-", marker=marker, ms=3, lw=1, capsize=2,
                            color=c)
            fitted = sorted(model.get((transport, coll, ranks, algo), []))
            if fitted:
                have_model = True
                ax.plot([f[0] for f in fitted], [f[1] for f in fitted], "--", lw=1, color=c)
        ps.size_axis(ax, "x", *size_range(sizes))
        ps.time_axis(ax)
        ax.set_title(f"{coll}, p = {ranks}", fontsize=9)
        ax.set_xlabel("message size S", fontsize=8)
        ax.set_ylabel("simulated time" if sim else "median time", fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
    handles = algorithm_handles(names)
    if have_model:
        handles.append(Line2D([], [], color="grey", ls="--", lw=1, label="model (dashed)"))
    if sim:
        title = f"Simulated time per operation vs message size ({transport_name}: computed, no samples)"
    else:
        title = (f"Measured time per operation vs message size over {transport_name} "
                 "(median; error bars: its 95% CI)")
    ps.finish(plt, fig, title + model_note(fit, transport_name, have_model), handles,
              "simulated" if sim else "measured")
    return save(fig, os.path.join(out, f"latency-{transport_name}.png"))


def plot_busbw(rows, ceiling, out):
    return [plot_busbw_one(t, trows, ceiling, out)
            for t, trows in by_transport(timed(out_of_place(rows))).items()]


def plot_busbw_one(transport_name, rows, ceiling, out):
    groups = panels(rows)
    fig, axes = ps.figure(plt, len(groups))
    sim = simulated(transport_name)
    names, off_scale = set(), set()
    # This machine's memcpy says nothing about a simulated network.
    lines = {} if sim else ceiling
    for ax, ((transport, coll, ranks), group) in zip(axes.flat, groups.items()):
        top, sizes = 0.0, []
        for algo in ps.sort_algorithms(r["algorithm"] for r in group):
            names.add(algo)
            c, marker = ps.style(algo)
            pts = sorted((num(r["_path"], r, "bytes"), num(r["_path"], r, "busbw_GBps"))
                         for r in group if r["algorithm"] == algo and r["busbw_GBps"])
            if not pts:
                continue
            sizes += [p[0] for p in pts]
            top = max(top, max(p[1] for p in pts))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", marker=marker, ms=3, lw=1,
                    color=c)
        # The axis fits the data; a ceiling above it is named in the title.
        ylim = top * 1.15 if top > 0 else 1.0
        ax.set_ylim(0, ylim)
        for (label, gbps), ls in zip(sorted(lines.items()), (":", "--")):
            if gbps <= ylim:
                ax.axhline(gbps, color="black", ls=ls, lw=1.1)
            else:
                off_scale.add(f"{label} {gbps:.3g} GB/s")
        ax.set_title(f"{coll}, p = {ranks}", fontsize=9)
        ps.size_axis(ax, "x", *size_range(sizes or [1, 2]))
        ax.set_xlabel("message size S", fontsize=8)
        ax.set_ylabel(("simulated " if sim else "") + "bus bandwidth (GB/s)", fontsize=8)
        ax.grid(True, alpha=0.3)
    kind = "simulated" if sim else "measured"
    handles = algorithm_handles(names)
    if lines:
        from matplotlib.lines import Line2D
        handles += [Line2D([], [], color="black", ls=ls, lw=1.1, label=f"{label} {gbps:.3g} GB/s")
                    for (label, gbps), ls in zip(sorted(lines.items()), (":", "--"))]
    note = (f"\nnot drawn where above a panel's scale: {', '.join(sorted(off_scale))}"
            if off_scale else "")
    ps.finish(plt, fig, f"Bus bandwidth vs message size over {transport_name}, {kind} "
                        f"(nccl-tests busbw factors){note}", handles, kind)
    return save(fig, os.path.join(out, f"busbw-{transport_name}.png"))


def category_axis(ax, values, axis, label, title):
    """Categories (rank counts) along one axis. With fewer than three there is
    nothing to read off an axis: the axis is hidden and the title names them."""
    setter = ax.set_yticks if axis == "y" else ax.set_xticks
    if len(values) < 3:
        (ax.yaxis if axis == "y" else ax.xaxis).set_visible(False)
        return f"{title}, {label} = {', '.join(str(v) for v in values)}"
    setter(range(len(values)))
    (ax.set_yticklabels if axis == "y" else ax.set_xticklabels)([str(v) for v in values],
                                                                fontsize=7)
    (ax.set_ylabel if axis == "y" else ax.set_xlabel)(label, fontsize=8)
    return title


def cell_edges(sizes):
    """Per size, the (left, right) edges of its cell on a log axis: halfway (in log)
    to its neighbours, a factor of 2 wide at the ends."""
    edges = []
    for i, s in enumerate(sizes):
        left = (s * sizes[i - 1]) ** 0.5 if i > 0 else s / 2 ** 0.5
        right = (s * sizes[i + 1]) ** 0.5 if i + 1 < len(sizes) else s * 2 ** 0.5
        edges.append((left, right))
    return edges


def draw_cells(ax, cells, ranks):
    """cells: {(ranks, bytes): (winner, tied, predicted)}. One row per rank count, one
    bar per size on a log size axis (sizes may differ between rank counts: at p = 3
    they are whole elements per rank): colour = winner, hatched = a tie, a ring
    where the winner is predicted, not measured."""
    lo, hi = float("inf"), 0.0
    for row, p in enumerate(ranks):
        sizes = sorted(b for (rk, b) in cells if rk == p)
        for size, (left, right) in zip(sizes, cell_edges(sizes)):
            winner, tied, predicted = cells[(p, size)]
            ax.barh(row, right - left, left=left, height=0.86, color=ps.colour(winner),
                    hatch="////" if tied else None, edgecolor="white", linewidth=0.4)
            if predicted:
                ax.plot([size], [row], marker="o", ms=4, mfc="none", mec="black", mew=0.8)
            lo, hi = min(lo, left), max(hi, right)
    ax.set_ylim(-0.6, len(ranks) - 0.4)
    ps.size_axis(ax, "x", lo, hi)
    ax.set_xlim(lo, hi)


def cells_legend(names, any_tie, any_predicted):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = patch_handles(names)
    if any_tie:
        handles.append(Patch(facecolor="white", edgecolor="grey", hatch="////",
                             label="hatched: a tie"))
    if any_predicted:
        handles.append(Line2D([], [], ls="", marker="o", ms=5, mfc="none", mec="black",
                              label="circle: predicted, not measured"))
    return handles


def plot_winners(directory, out):
    """winners.csv (collbench recommend): one figure per (setting, transport), a panel
    per (collective, datatype, op, placement), rows = rank counts; [] when the
    directory has none."""
    path = os.path.join(directory, "winners.csv")
    if not os.path.isfile(path):
        return []
    rows = read_csv(path, WINNER_COLUMNS)
    figures = defaultdict(list)
    for r in rows:
        figures[(r.get("setting") or "", r["transport"])].append(r)
    written = []
    for (setting, transport), trows in sorted(figures.items()):
        groups = defaultdict(dict)
        for r in trows:
            kind = [r["collective"], r["datatype"]] + [
                v for v in (r.get("op"), r.get("placement")) if v and v not in ("sum", "out")]
            groups[tuple(kind)][(int(float(r["ranks"])), num(path, r, "bytes"))] = (
                r["algorithm"], bool(r["tied_with"]), r["source"] == "predicted")
        fig, axes = ps.figure(plt, len(groups), panel_w=5.2, panel_h=3.0)
        names, any_tie, any_pred = set(), False, False
        for ax, (kind, cells) in zip(axes.flat, sorted(groups.items())):
            ranks = sorted({k[0] for k in cells})
            draw_cells(ax, cells, ranks)
            names |= {v[0] for v in cells.values()}
            any_tie |= any(v[1] for v in cells.values())
            any_pred |= any(v[2] for v in cells.values())
            title = f"{kind[0]} ({', '.join(kind[1:])})"
            ax.set_title(category_axis(ax, ranks, "y", "ranks p", title), fontsize=9)
            ax.set_xlabel("message size S per rank", fontsize=8)
        kinds = sorted({r["source"] for r in trows})
        where = f"{setting}, {transport}" if setting else transport
        ps.finish(plt, fig, f"Fastest algorithm per (ranks, size) over {where}, "
                            f"{' and '.join(kinds)} (collbench recommend's winners.csv)",
                  cells_legend(names, any_tie, any_pred), "winner")
        name = f"winners-{setting}-{transport}.png" if setting else f"winners-{transport}.png"
        written.append(save(fig, os.path.join(out, safe_name(name))))
    return written


def safe_name(name):
    """A file name from CSV values: anything but letters, digits and .-_ becomes _, so
    a setting cannot name a path."""
    return "".join(c if c.isalnum() or c in ".-_" else "_" for c in name)


def plot_map(path, out):
    """A map CSV of collbench map: the simulated winners over (ranks, size)."""
    rows = read_csv(path, MAP_COLUMNS)
    cells = {}
    for r in rows:
        if not r["best_algorithm"]:
            continue
        margin = num(path, r, "margin") if r["margin"] else None
        # The simulator is exact: only identical times (margin 0) are a tie.
        cells[(int(float(r["ranks"])), num(path, r, "bytes"))] = (r["best_algorithm"],
                                                                  margin == 0, False)
    if not cells:
        raise InputError(f"{path}: no row names a best_algorithm (nothing to draw)")
    ranks = sorted({k[0] for k in cells})
    fig, axes = ps.figure(plt, 1, panel_w=7.5, panel_h=max(3.2, 0.22 * len(ranks) + 1.8))
    ax = axes[0][0]
    draw_cells(ax, cells, ranks)
    coll = rows[0]["collective"]
    first = rows[0]
    params = ""
    if all(first.get(c) not in (None, "") for c in ("alpha_s", "beta_s_per_B", "gamma_s_per_B")):
        params = "\n" + params_text(num(path, first, "alpha_s"), num(path, first, "beta_s_per_B"),
                                    num(path, first, "gamma_s_per_B"))
    ax.set_title(category_axis(ax, ranks, "y", "ranks p", f"{coll}"), fontsize=9)
    ax.set_xlabel("message size S per rank", fontsize=8)
    ps.finish(plt, fig, f"Fastest {coll} algorithm per (ranks, size), simulated{params}",
              cells_legend({v[0] for v in cells.values()}, any(v[1] for v in cells.values()),
                           False), "winner")
    name = os.path.basename(path)[:-len(".csv")]
    return save(fig, os.path.join(out, "crossover-" + name.replace("map-", "", 1) + ".png"))


def summary_rows(directory, kind):
    """fit/summary.csv's rows of KIND (collbench fit, models/summary_csv.hpp); none without
    the file."""
    path = os.path.join(directory, "fit", "summary.csv")
    if not os.path.isfile(path):
        return []
    return [r for r in read_csv(path, ["kind", "number", "text"]) if r["kind"] == kind]


def summary_number(directory, kind):
    """The number of fit/summary.csv's KIND row (models/targets.hpp), or None without one."""
    rows = summary_rows(directory, kind)
    return num(rows[0]["_path"], rows[0], "number") if rows else None


def shown_levels(directory):
    """The levels the plots show, in order: fit/summary.csv's shown_level rows
    (models/report_levels.hpp; the ablation table in report.md has every level)."""
    return [r["text"] for r in summary_rows(directory, "shown_level")]


def plot_prediction_error(preds, fit, levels, band, out):
    """Per level shown (`levels`), measured vs predicted (top row) and residual vs size
    (bottom), with the band ±`band` shaded (none when it is None)."""
    present = {p["params"] for p in preds}
    models = [m for m in levels if m in present]
    if not models:
        return None
    fig, axes = plt.subplots(2, len(models), squeeze=False,
                             figsize=(min(5.0 * len(models) + ps.LEGEND_W,
                                          ps.MAX_WIDTH_PX / ps.DPI), 8.4))
    names = set()
    for col, m in enumerate(models):
        ax1, ax2 = axes[0][col], axes[1][col]
        sel = [p for p in preds if p["params"] == m]
        lo, hi, sizes = float("inf"), 0.0, []
        for algo in ps.sort_algorithms(p["algorithm"] for p in sel):
            names.add(algo)
            c, marker = ps.style(algo)
            pts = [p for p in sel if p["algorithm"] == algo]
            meas = [num(p["_path"], p, "measured_s") * 1e6 for p in pts]
            pred = [num(p["_path"], p, "predicted_s") * 1e6 for p in pts]
            ax1.scatter(meas, pred, s=9, alpha=0.7, color=c, marker=marker)
            sizes += [num(p["_path"], p, "bytes") for p in pts]
            ax2.scatter(sizes[-len(pts):], [num(p["_path"], p, "rel_err") for p in pts], s=9,
                        alpha=0.7, color=c, marker=marker)
            positive = [v for v in meas + pred if v > 0]
            if positive:
                lo, hi = min(lo, *positive), max(hi, *positive)
        if hi <= 0:
            lo, hi = 1.0, 10.0
        line = [lo, hi]
        ax1.plot(line, line, "k-", lw=1)
        if band is not None:
            ax1.fill_between(line, [v * (1 - band) for v in line], [v * (1 + band) for v in line],
                             color="grey", alpha=0.2)
        ps.time_axis(ax1, "x")
        ps.time_axis(ax1, "y")
        transports = sorted({p["transport"] for p in sel})
        used = "\n".join(f"{t}: {params_text(*fit[(m, t)])}" for t in transports
                         if (m, t) in fit)
        ax1.set_title(MODEL_NAMES.get(m, m) + (f"\n{used}" if used else ""), fontsize=8)
        ax1.set_xlabel("measured median time", fontsize=8)
        ax1.set_ylabel("predicted (line y = x" + (f", band ±{100 * band:g}%" if band is not None
                                                  else "") + ")", fontsize=8)
        ax1.grid(True, alpha=0.3)
        ax2.axhline(0, color="black", lw=1)
        if band is not None:
            ax2.axhspan(-band, band, color="grey", alpha=0.2)
        ps.size_axis(ax2, "x", *size_range(sizes or [1, 2]))
        ax2.set_xlabel("message size S", fontsize=8)
        ax2.set_ylabel("(predicted − measured) / measured", fontsize=8)
        ax2.set_title("residual vs size", fontsize=8)
        ax2.grid(True, alpha=0.3)
    ps.finish(plt, fig, "Model error (knees in the residual show protocol switches; every "
                        "level: report.md's ablation table)",
              algorithm_handles(names), "algorithm")
    return save(fig, os.path.join(out, "model-error.png"))


def pair_styles(keys):
    """A distinct (colour, marker) per crossover pair, stable in every panel."""
    cmap = plt.get_cmap("tab10")
    markers = "osD^vP*Xh<>p"
    return {k: (cmap(i % 10), markers[(i // 10) % len(markers)])
            for i, k in enumerate(sorted(keys))}


def plot_crossovers(directory, levels, band, out):
    """Predicted vs measured crossover size: one point per pair (fit/crossovers.csv,
    kind = pair, both sizes given), a panel per level shown (`levels`) that has a point
    (every level shown when none has), each pair named in the legend, the factor `band`
    around y = x shaded (none when it is None). None when the directory has no fit or its
    fit names no level shown."""
    from matplotlib.lines import Line2D
    path = os.path.join(directory, "fit", "crossovers.csv")
    if not os.path.exists(path):
        return None
    rows = read_csv(path, CROSSOVER_COLUMNS)
    points = defaultdict(dict)
    for r in rows:
        if r["kind"] == "pair" and r["predicted_crossover_B"] and r["measured_crossover_B"]:
            key = (r["transport"], r["collective"], int(float(r["ranks"])), r["algo_a"],
                   r["algo_b"])
            points[r["params"]][key] = (num(path, r, "measured_crossover_B"),
                                        num(path, r, "predicted_crossover_B"))
    models = [m for m in levels if m in points] or levels
    if not models:
        return None
    keys = {k for m in models for k in points.get(m, {})}
    styles = pair_styles(keys)
    fig, axes = ps.figure(plt, len(models), panel_w=4.8, panel_h=4.4,
                          legend=True)
    values = [v for m in models for pt in points.get(m, {}).values() for v in pt]
    lo, hi = (min(values) / 2, max(values) * 2) if values else (8.0, 64.0 * 2 ** 20)
    for ax, m in zip(axes.flat, models):
        for key, (meas, pred) in sorted(points.get(m, {}).items()):
            c, marker = styles[key]
            ax.scatter([meas], [pred], s=28, color=c, marker=marker)
        line = [lo, hi]
        ax.plot(line, line, "k-", lw=1)
        if band is not None:
            ax.fill_between(line, [v / band for v in line], [v * band for v in line],
                            color="grey", alpha=0.2)
        ps.size_axis(ax, "x", lo, hi)
        ps.size_axis(ax, "y", lo, hi)
        ax.set_xlabel("measured (CIs separate on both sides)", fontsize=8)
        ax.set_ylabel("predicted crossover size", fontsize=8)
        n = len(points.get(m, {}))
        ax.set_title(f"{MODEL_NAMES.get(m, m)}: {n} pair(s)" if n else
                     f"{MODEL_NAMES.get(m, m)}: no pair crosses in both", fontsize=8)
        ax.grid(True, alpha=0.3)
    handles = [Line2D([], [], ls="", marker=styles[k][1], color=styles[k][0], ms=5,
                      label=f"{k[1]} p={k[2]}: {k[3]} / {k[4]}" + (f" ({k[0]})" if len(
                          {kk[0] for kk in keys}) > 1 else ""))
               for k in sorted(keys)]
    if band is not None:
        handles.append(Line2D([], [], color="grey", lw=6, alpha=0.4,
                              label=f"y = x, within {band:g}×"))
    ncol = 1 if len(handles) <= 24 else 2
    ps.finish(plt, fig, "Crossover sizes: predicted vs measured, per pair", handles, "pair",
              ncol=ncol)
    return save(fig, os.path.join(out, "crossovers.png"))


def common_count(counts):
    """(count, per rank count the measured count nearest it) for the rank comparison:
    the largest count per rank that the most rank counts measured within a factor of
    √2 (at p = 3 a count is a whole number of elements per rank, so it can sit just
    below the others' power of two); None where a rank count has none that near."""
    def near(c, measured):
        best = min(measured, key=lambda m: abs(math.log(m / c)))
        return best if abs(math.log(best / c)) <= math.log(2) / 2 else None

    candidates = sorted(set.union(*counts))
    count = max(candidates, key=lambda c: (sum(near(c, m) is not None for m in counts), c))
    return count, [near(count, m) for m in counts]


def plot_rank_comparison(rows, out):
    """Time against rank count at one count per rank (elements each rank holds, so
    p = 3's whole-element sizes line up with the others), log-log, for each
    (transport, collective) run at more than one rank count; None when there is none."""
    rows = timed(out_of_place(rows))
    by_coll = defaultdict(list)
    for r in rows:
        by_coll[(r["transport"], r["collective"])].append(r)
    by_coll = {k: v for k, v in sorted(by_coll.items())
               if len({int(float(r["ranks"])) for r in v}) > 1 and all(r.get("count") for r in v)}
    target = os.path.join(out, "rank-comparison.png")
    if not by_coll:
        remove_output(target)  # a stale one from an earlier run would mislead
        return None
    fig, axes = ps.figure(plt, len(by_coll))
    names = set()
    for ax, ((transport, coll), group) in zip(axes.flat, by_coll.items()):
        rank_counts = sorted({int(float(r["ranks"])) for r in group})
        counts = [{num(r["_path"], r, "count") for r in group if int(float(r["ranks"])) == p}
                  for p in rank_counts]
        count, nearest = common_count(counts)
        times = []
        for algo in ps.sort_algorithms(r["algorithm"] for r in group):
            pts = sorted((p, num(r["_path"], r, "time_median_us"))
                         for p, c in zip(rank_counts, nearest) if c is not None
                         for r in group if r["algorithm"] == algo
                         and int(float(r["ranks"])) == p and num(r["_path"], r, "count") == c)
            if not pts:
                continue
            names.add(algo)
            c, marker = ps.style(algo)
            ax.plot([p for p, _ in pts], [t for _, t in pts], "-", marker=marker, ms=4, lw=1,
                    color=c)
            times += [t for _, t in pts]
        ax.set_xscale("log", base=2)
        from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter
        span = list(range(rank_counts[0], rank_counts[-1] + 1))
        ticks = span if len(span) <= 10 else ps.powers(rank_counts[0], rank_counts[-1], 2, 0)
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlim(rank_counts[0] / 1.15, rank_counts[-1] * 1.15)
        ps.time_axis(ax)
        ax.set_xlabel("ranks p", fontsize=8)
        ax.set_ylabel(("simulated" if simulated(transport) else "median") + " time", fontsize=8)
        about = "" if all(c in (None, count) for c in nearest) else "≈ "
        ax.set_title(f"{coll} ({transport}), {about}{count:,.0f} {group[0]['datatype']} per rank",
                     fontsize=9)
        ax.grid(True, alpha=0.3)
    ps.finish(plt, fig, "Time per operation across rank counts at one count per rank",
              algorithm_handles(names), "algorithm")
    return save(fig, target)


def check_inputs(directory):
    """Reads every other CSV the plots use before any PNG is written, so a malformed
    one stops the run with nothing half-drawn."""
    for path in find_maps(directory):
        read_csv(path, MAP_COLUMNS)
    for name, columns in (("winners.csv", WINNER_COLUMNS),
                          (os.path.join("fit", "crossovers.csv"), CROSSOVER_COLUMNS)):
        if os.path.isfile(os.path.join(directory, name)):
            read_csv(os.path.join(directory, name), columns)


def plot_directory(directory, out):
    sweeps = load_sweeps(directory)
    preds = load_predictions(directory)
    fit = load_fit_params(directory)
    ceiling = memcpy_ceiling(directory)
    check_inputs(directory)
    written = plot_latency(sweeps, preds, fit, out)
    written += plot_busbw(sweeps, ceiling, out)
    written += plot_winners(directory, out)
    written += [plot_map(p, out) for p in find_maps(directory)]
    levels = shown_levels(directory)
    band = summary_number(directory, "error_band")
    written.append(plot_prediction_error(preds, fit, levels, band, out) if preds else None)
    written.append(plot_crossovers(directory, levels, summary_number(directory, "crossover_band"),
                                   out))
    written.append(plot_rank_comparison(sweeps, out))
    written.append(plot_arrival.plot_arrival(
        plt, ps, save, os.path.join(directory, plot_arrival.STUDY_CASES), out))
    return [w for w in written if w]


def plot_file(path, out):
    kind = kind_of(path)
    if kind == "map":
        return [plot_map(path, out)]
    if kind != "sweep":
        raise InputError(f"{path}: neither a results CSV of collbench run nor a map CSV of "
                         "collbench map (see harness/report/CSV.md)")
    rows = load_sweep_files([path])
    if not timed(rows):
        raise InputError(f"{path}: no row has a median time (nothing to plot)")
    written = plot_latency(rows, [], {}, out) + plot_busbw(rows, {}, out)
    written.append(plot_rank_comparison(rows, out))
    return [w for w in written if w]


def main(argv):
    parser = argparse.ArgumentParser(
        prog="plot.py", description=__doc__.split("\n\n")[0],
        epilog="Writes PNGs; prints where to on stderr. Exit status 2 on a missing or "
               "malformed input or an output that is not a directory, 4 when a write fails.")
    parser.add_argument("input", metavar="RESULTS_DIR|FILE.csv",
                        help="a study/results directory, or one results or map CSV")
    parser.add_argument("--out", help="where the PNGs go (default: plots/ next to the input)")
    args = parser.parse_args(argv)
    if os.path.isdir(args.input):
        out = args.out or os.path.join(args.input, "plots")
    elif os.path.isfile(args.input):
        out = args.out or os.path.join(os.path.dirname(args.input) or ".", "plots")
    else:
        raise InputError(f"{args.input}: no such file or directory")
    load_matplotlib()
    prepare_directory(out, "--out" if args.out else "the plots directory")
    if os.path.isdir(args.input):
        written = plot_directory(args.input, out)
    else:
        written = plot_file(args.input, out)
    print(f"plots written to {out}: {', '.join(os.path.basename(w) for w in written)}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    import script_main
    sys.exit(script_main.run("plot.py", main, sys.argv[1:]))
