#!/usr/bin/python3
"""Testbed study report: what collbench's model recovered against the network
the testbed was configured with (scripts/testbed/study.sh writes the inputs).

  /usr/bin/python3 scripts/testbed/report.py DIR     writes DIR/report.md

DIR holds one folder per setting, each with:
  setting.txt      latency_us=, bandwidth_bps=, hosts=, cores= (the ground truth)
  commands.txt     the commands that produced the files below
  probe.csv        calibration on a 2-host testbed with the delay set to 0:
                   its alpha is the stack's own per-message overhead
  calibration.csv  calibration on the testbed (out-of-sample parameters)
  sweep.csv        the measured sweep; fit/ = `collbench fit sweep.csv --calibration ...
                   --network setting.txt --stack-overhead probe.csv`
  refit.txt        (optional) commands of a later re-fit of the same files, shown too

Rows the CPU rather than the link limits are decided by `collbench fit
--network` (models/link_limits.hpp: the CPU time their messages need against
the configured link's time for them) and read from fit/link-limited.csv, with
each row's rounds. Those rows are listed and left out of every target below,
and so is a measured crossover next to one (at the measured sizes on either
side of it); nothing else is left out. The figures, their targets and
verdicts are the fit's own, graded in scope `link-limited`
(models/link_grades.hpp): fit/accuracy.csv per level, fit/crossovers.csv per
crossover (columns cpu_limited, verdict, within_interval), fit/miss-classes.csv
per missed crossover, fit/link-errors.csv per algorithm; the levels shown, and
which is the main column, are fit/report-levels.csv's (models/report_levels.hpp).
Nothing here computes a figure or judges one.
"""
import os
import sys

# scripts/ for the shared readers and writers; appended, so that `report` stays
# this file for the testbed scripts that import it (classify_crossovers.py, ...).
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from output_file import EXIT_BAD_INPUT, write_atomically  # noqa: E402
import report_answer  # noqa: E402
import results_csv  # noqa: E402

HOW_TO = "`collbench recommend DIR --out DIR` writes it."


def read_csv(path):
    """Rows of a CSV, its numeric columns checked (results_csv.read_csv): a malformed
    file is one InputError line, not a traceback."""
    return results_csv.read_csv(path, [])


def measured_times(sweep_rows):
    """Per (collective, p, bytes, algorithm): (median, CI low, CI high) in
    seconds, from a sweep CSV's rows."""
    return {(r["collective"], int(r["ranks"]), int(r["bytes"]), r["algorithm"]):
            (float(r["time_median_us"]) * 1e-6, float(r["ci_lo_us"]) * 1e-6,
             float(r["ci_hi_us"]) * 1e-6) for r in sweep_rows}


def read_setting(d):
    out = {}
    with open(os.path.join(d, "setting.txt")) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            if k:
                out[k] = float(v)
    return out


def link_rows(d):
    """fit/link-limited.csv of a setting (`collbench fit --network`), by
    (collective, p, size, algorithm): its row (rounds, bytes_sent, cpu_limited)."""
    path = os.path.join(d, "fit", "link-limited.csv")
    return {(r["collective"], int(r["ranks"]), int(r["bytes"]), r["algorithm"]): r
            for r in read_csv(path)}


def latency_rounds(d):
    """Smallest size at small p: each algorithm's measured time in units of
    the expected α next to the latencies the model charges it (its rounds),
    to show where the model's count of latencies, not α itself, is off;
    fit/latency-rounds.csv as `collbench fit --network` judged it
    (models/latency_rounds.hpp)."""
    path = os.path.join(d, "fit", "latency-rounds.csv")
    table = read_csv(path) if os.path.isfile(path) else []
    rows = [r for r in table if r["kind"] == "row"]
    if not rows:
        return []
    ps = [int(r["ranks"]) for r in table if r["kind"] == "ranks"]
    cells = {(r["collective"], r["algorithm"], int(r["ranks"])): r for r in rows}
    head = " | ".join(f"p = {p}: model / median / fastest" for p in ps)
    out = ["<details><summary>Latencies at the smallest size: the model's rounds against the "
           "measured time in units of the expected α</summary>\n",
           "The α-β model charges each algorithm its rounds × α. Below, each algorithm's "
           "time at the smallest size in units of the expected α (median, fastest sample) "
           "next to those rounds. Where they differ, the model's count of latencies, not α, "
           "is off, and one α fitted across these rows absorbs the difference. "
           + latency_summary(ps, cells, [r for r in table if r["kind"] == "rounds"]) + "\n",
           f"| collective | algorithm | {head} |", "|---|---|" + "---|" * len(ps)]
    for coll, algo in sorted({(c, a) for c, a, _ in cells}):
        row = []
        for p in ps:
            c = cells.get((coll, algo, p))
            row.append("–" if c is None else f"{float(c['rounds']):.0f} / "
                       f"{float(c['median_alpha']):.2f} / {float(c['fastest_alpha']):.2f}")
        out.append(f"| {coll} | {algo} | " + " | ".join(row) + " |")
    out.append("\n</details>\n")
    return out


def latency_summary(ps, cells, rounds_rows):
    """One sentence per p: the median measured latencies per model round count
    and the algorithms off by the factor, both as the CSV gives them."""
    parts = []
    for p in sorted({k[2] for k in cells}):
        off = [f"{c} {a} {float(r['median_alpha']):.1f} for {float(r['rounds']):.0f}"
               for (c, a, pp), r in sorted(cells.items()) if pp == p and r["off"] == "1"]
        counts = "; ".join(f"{r['rounds']} round(s): {float(r['median_alpha']):.2f} "
                           f"(median of {r['count']})"
                           for r in sorted((r for r in rounds_rows if int(r["ranks"]) == p),
                                           key=lambda r: int(r["rounds"])))
        factor = next(float(r["off_factor"]) for r in cells.values())
        parts.append(f"At p = {p}, measured per model rounds — {counts}. Off by {factor:g}× or "
                     f"more: {', '.join(off) if off else 'none'}.")
    return " ".join(parts)


def cpu_rows_of(d):
    """The rows fit/link-limited.csv marks cpu_limited, as (collective, p, size, algorithm)."""
    return {k for k, r in link_rows(d).items() if r["cpu_limited"] == "1"}


def miss_classes(d):
    """One sentence: the classes of the main calibrated column's strict misses,
    as `collbench fit --network` judged them (fit/miss-classes.csv, read by
    classify_crossovers.py; the rules: models/miss_classes.hpp)."""
    import classify_crossovers  # imports this file as `report`: import here, not at the top
    lv, rows = classify_crossovers.classify(d)
    counts = {}
    for x in rows:
        counts[x["cls"]] = counts.get(x["cls"], 0) + 1
    names = {"i": "ill-conditioned by the measurement", "ii": "CPU-limited rank count",
             "iii": "a cost the model lacks", "iv": "other"}
    parts = []
    for k in ("i", "ii", "iii", "iv"):
        n = sum(v for (kk, _), v in counts.items() if kk == k)
        why = ", ".join(f"{w} {v}" for (kk, w), v in sorted(counts.items()) if kk == k)
        parts.append(f"({k}) {names[k]}: {n}" + (f" ({why})" if n and k in ("i", "iii") else ""))
    return (f"Why the {len(rows)} strict misses of `{lv}` are missed "
            "(scripts/testbed/classify_crossovers.py): " + "; ".join(parts) + ".")


def measured_interval(r):
    """(lo, hi) in bytes: the sizes a pair row of crossovers.csv says its first
    measured crossover lies between (`collbench fit`'s rule: where the old and
    the new winner are significantly faster), or None."""
    lo, hi = r.get("measured_crossover_lo_B"), r.get("measured_crossover_hi_B")
    return (float(lo), float(hi)) if lo and hi else None


def scoped_crossovers(xcsv, lv):
    """The pair rows of level lv in a fit's crossovers.csv whose measured crossover
    is in the link-limited scope (fit --network: cpu_limited 0, with a verdict)."""
    return [r for r in xcsv if r["kind"] == "pair" and r["params"] == lv
            and r["measured_crossover_B"] and r["cpu_limited"] == "0"]


def crossover_rows(xs):
    """The table rows of the scoped crossovers, and per-p tallies of [measured,
    within the factor, not predicted, predicted below] (the fit's verdicts)."""
    rows, per_p = [], {}
    for r in xs:
        m = float(r["measured_crossover_B"])
        q = float(r["predicted_crossover_B"]) if r["predicted_crossover_B"] else None
        ratio = float(r["crossover_ratio"]) if r["crossover_ratio"] else None
        good = r["verdict"] == "within"
        iv = measured_interval(r)
        tally = per_p.setdefault(int(r["ranks"]), [0, 0, 0, 0])
        tally[0] += 1
        tally[1] += good
        tally[2] += r["verdict"] == "none"
        tally[3] += r["verdict"] == "below"
        rows.append(f"| {r['collective']} | {r['ranks']} | {r['algo_a']} / {r['algo_b']} | "
                    f"{r['measured_faster_below']} | {m:.0f} | "
                    f"{'none' if q is None else f'{q:.0f}'} | "
                    f"{'–' if ratio is None else f'{ratio:.2f}×'} | {'yes' if good else 'no'} | "
                    f"{'–' if iv is None else f'{iv[0]:.0f}–{iv[1]:.0f}'} |")
    return rows, per_p


def link_grades(fit_dir):
    """fit_dir/accuracy.csv's rows of scope link-limited, by params."""
    return {r["params"]: r for r in read_csv(os.path.join(fit_dir, "accuracy.csv"))
            if r["scope"] == "link-limited"}


def grid_line(d, lv, meas):
    """The crossover counts of the same run on its sweep grid alone (fit-grid/,
    fitted before the refinement pass), or None when there is no such fit."""
    gdir = os.path.join(d, "fit-grid")
    if not os.path.exists(os.path.join(gdir, "crossovers.csv")):
        return None
    grid = {(r["collective"], int(r["ranks"]), int(r["bytes"]))
            for r in read_csv(os.path.join(gdir, "predictions.csv"))}
    g = link_grades(gdir)[lv]
    ok, ok_iv, n = g["crossovers_within_factor"], g["crossovers_within_interval"], g["crossovers"]
    refined = sum(1 for k in {k[:3] for k in meas} if k not in grid)
    return (f"Before the refinement pass, on the sweep's grid alone (`fit-grid/`, the same run's rows "
            f"without the {refined} (collective, p, size) cells the refinement added), `{lv}` put "
            f"{ok} of {n} measured crossovers within {float(g['target_crossover_factor']):g}× "
            f"({ok_iv} of {n} by the second count).\n")


def shown_levels(d):
    """The levels the report shows, as `collbench fit --network` chose them
    (fit/report-levels.csv, models/report_levels.hpp): their params in the
    report's order, the one of each role ("step": priced step by step;
    "clocked": with per-rank clocks; None when absent) and the main column."""
    rows = results_csv.read_csv(os.path.join(d, "fit", "report-levels.csv"),
                                ["column", "role", "params", "main"], empty_ok=True)
    rows.sort(key=lambda r: int(r["column"]))
    role = {r["role"]: r["params"] for r in rows}
    main = next((r["params"] for r in rows if r["main"] == "1"), None)
    return [r["params"] for r in rows], role.get("step"), role.get("clocked"), main


def level_errors(d, lv):
    """fit/link-errors.csv's rows of level lv: per algorithm the median signed and
    |rel_err| over the link-limited rows, as `collbench fit --network` computed them."""
    return [r for r in results_csv.read_csv(os.path.join(d, "fit", "link-errors.csv"),
                                            ["params", "collective", "algorithm", "rows_all",
                                             "median_signed_err_all", "median_abs_err_all"],
                                            empty_ok=True)
            if r["params"] == lv]


def common_sizes(meas, c, p, a, b):
    """The sizes at which both algorithms a and b were measured (c, p)."""
    return sorted(s for (cc, pp, s, al) in meas if cc == c and pp == p and al == a
                  and (c, p, s, b) in meas)


def start_line(sweep):
    """How the sweep's timed iterations started (the CSV's start column;
    files from before `--start` have none and started after a barrier), and
    how many iterations the window start dropped for a late rank."""
    counts = {}
    late = 0
    for r in sweep:
        method = r.get("start") or ("barrier" if "start" not in r else "")
        if method:
            counts[method] = counts.get(method, 0) + 1
        if r.get("late"):
            late += int(r["late"])
    if not counts:
        return "Start of each timed iteration: not recorded."
    parts = [f"{m} ({n} rows)" for m, n in sorted(counts.items())]
    text = "Start of each timed iteration (`collbench run --start`): " + ", ".join(parts) + "."
    if "start" not in sweep[0]:
        text += " (This sweep predates the start column: every row started after a barrier.)"
    if counts.get("window"):
        text += (f" The window start dropped {late} iteration(s) in which a rank reached its "
                 "wait after the window had opened (the `late` column).")
    return text


def fmt_pct(x):
    return "–" if x is None else f"{100 * x:.1f}%"


def verdict(ok):
    return "**met**" if ok else "**missed**"


def network_row(d):
    """fit/network.csv's row of transport mpi (`collbench fit --network`): the fitted
    α and 1/β against the configured network, with their targets and verdicts."""
    return next(r for r in read_csv(os.path.join(d, "fit", "network.csv"))
                if r["transport"] == "mpi")


def report_setting(d, name, out):
    st = read_setting(d)
    cores = st.get("cores", 2)
    cal = read_csv(os.path.join(d, "calibration.csv"))[0]
    fit = read_csv(os.path.join(d, "fit", "fit.csv"))
    glob = next(r for r in fit if r["scope"] == "global" and r["transport"] == "mpi")
    net = network_row(d)
    lat, overhead = float(net["latency_s"]), float(net["stack_overhead_s"])
    alpha_exp, alpha_fit = float(net["expected_alpha_s"]), float(net["fitted_alpha_s"])
    bw, share = float(net["rate_B_per_s"]), float(net["payload_share"])
    alpha_cal, beta_cal = float(cal["alpha_s"]), float(cal["beta_s_per_B"])

    out.append(f"## {name}: one-way latency {st['latency_us']:.0f} µs, "
               f"{st['bandwidth_bps'] / 1e6:.0f} Mbit/s, {st['hosts']:.0f} hosts on {cores:.0f} cores\n")
    with open(os.path.join(d, "commands.txt")) as f:
        out.append("Commands (in order):\n\n```sh\n" + f.read().strip() + "\n```\n")
    # A later re-fit of the same sweep (no new measurement), e.g. with a term
    # derived for a calibration that predates it: its commands, as run.
    refit = os.path.join(d, "refit.txt")
    if os.path.exists(refit):
        with open(refit) as f:
            out.append("Re-fitted later from the committed files above, no new measurement "
                       "(fit/ and the figures below come from these):\n\n```sh\n"
                       + f.read().strip() + "\n```\n")

    # ---- parameters
    sweep = read_csv(os.path.join(d, "sweep.csv"))
    starts = sorted({r.get("start") or "barrier" for r in sweep if r.get("start", "x")})
    out.append("| | configured | stack overhead (delay 0) | expected | calibrated (ping-pong) | "
               f"fitted (sweep, global; start {', '.join(starts) or '–'}) | error of fit | target |")
    out.append("|---|---|---|---|---|---|---|---|")
    out.append(f"| α (µs) | {lat * 1e6:.1f} | {overhead * 1e6:.1f} | {alpha_exp * 1e6:.1f} | "
               f"{alpha_cal * 1e6:.1f} | {alpha_fit * 1e6:.1f} | "
               f"{fmt_pct(float(net['alpha_error']))} | "
               f"≤ {100 * float(net['target_alpha_error']):g}%: {verdict(net['met_alpha'] == '1')} |")
    out.append(f"| 1/β (MB/s) | {bw / 1e6:.3f} | payload share {100 * share:.1f}% | "
               f"{float(net['expected_rate_B_per_s']) / 1e6:.3f} | {1e-6 / beta_cal:.3f} | "
               f"{float(net['fitted_rate_B_per_s']) / 1e6:.3f} | "
               f"{fmt_pct(float(net['rate_error']))} | ≤ {100 * float(net['target_rate_error']):g}% "
               f"of configured: {verdict(net['met_rate'] == '1')} |")
    out.append("")
    schedule_rows = [r for r in sweep if r["algorithm"] != "mpi"]
    shared = sum(r.get("oversubscribed") == "1" for r in schedule_rows)
    unshared_p = sorted({int(r["ranks"]) for r in schedule_rows if r.get("oversubscribed") != "1"})
    out.append(f"The global fit used {glob['points']} of the {len(schedule_rows)} schedule rows: "
               f"those measured with a core per rank (p = {', '.join(map(str, unshared_p)) or '–'}). "
               f"The {shared} rows at larger p share the {cores:.0f} cores and are left out of "
               "it (models/fit_rows.hpp); every row is still predicted and graded below. The "
               "expected 1/β is the link's rate times the TCP payload share of a 9000 B frame; "
               "the expected α is the configured latency plus the stack's own per-message "
               "overhead, measured by the same ping-pong with the delay at 0.\n")
    out.append(start_line(sweep) + "\n")
    out.extend(latency_rounds(d))
    dpath = os.path.join(d, "durations.txt")
    if os.path.exists(dpath):
        with open(dpath) as f:
            out.append("Durations (wall clock, with the 1-minute load average at the end of each "
                       "pass):\n\n```\n" + f.read().strip() + "\n```\n")

    # ---- rows, CPU-limited region
    meas = measured_times(sweep)
    allpreds = read_csv(os.path.join(d, "fit", "predictions.csv"))
    preds = [r for r in allpreds if r["params"] == "calibration"]
    cpu_rows = cpu_rows_of(d)

    # ---- the model's figures, per calibrated level: `collbench fit --network`
    # graded them (scope link-limited: accuracy.csv, crossovers.csv); shown as is
    xcsv = read_csv(os.path.join(d, "fit", "crossovers.csv"))
    # The columns as fit chose them (report-levels.csv): the baseline, the
    # level priced step by step and, the main one, the level with flight.
    levels, step, clocked, main = shown_levels(d)
    grades = link_grades(os.path.join(d, "fit"))
    xrows, xby_p = {}, {}
    for lv in levels:
        xrows[lv], xby_p[lv] = crossover_rows(scoped_crossovers(xcsv, lv))
    out.append("Out-of-sample figures (the calibration's parameters, never the sweep's), "
               "CPU-limited rows left out. `calibration` is the α-β-γ baseline; "
               f"`{step or 'calibration+…'}` the calibrated model with the "
               "terms its calibration measured, priced step by step "
               "(each round takes its slowest rank)"
               + (f"; `{clocked}` adds `flight`, latency off the critical path: per-rank clocks "
                  "along the schedule's dependencies, so a message that waits on nothing flies "
                  "while its receiver is busy (models/README.md); the details below are for it"
                  if clocked else "") + ".\n")
    out.append("| target | " + " | ".join(levels) + " |")
    out.append("|---|" + "---|" * len(levels))

    def value(g, column):
        return float(g[column]) if g[column] else None

    def cell(lv, key):
        g = grades[lv]
        if key == "big":
            return (f"{fmt_pct(value(g, 'median_abs_err_large'))} of {g['rows_large']} rows: "
                    f"{verdict(g['met_median_abs_err_large'] == '1')}")
        if key == "all":
            return (f"{fmt_pct(value(g, 'median_abs_err_all'))} of {g['rows_all']} rows: "
                    f"{verdict(g['met_median_abs_err_all'] == '1')}")
        if key == "xover":
            return (f"{g['crossovers_within_factor']} of {g['crossovers']}: "
                    f"{verdict(g['met_crossovers'] == '1')}")
        if key == "xover_iv":
            return f"{g['crossovers_within_interval']} of {g['crossovers']} (not a target)"
        if key == "pick":
            n = int(g["picks"])
            share = int(g["picks_right"]) / n if n else None
            return (f"{g['picks_right']}/{n} = {fmt_pct(share)}: "
                    f"{verdict(g['met_picks'] == '1')}")
        worst = value(g, "worst_regret") if int(g["picks"]) else None
        return (f"{fmt_pct(value(g, 'median_regret'))} (worst {fmt_pct(worst)}): "
                f"{verdict(g['met_median_regret'] == '1')}")

    # The targets as the fit wrote them (every level of the scope has the same).
    t = grades[main] if main else {}
    x = f"{float(t['target_crossover_factor']):g}×" if t else "–"
    # The size from which an error counts as large, as the fit split them.
    large = results_csv.band_labels(t["_path"], t)["large"] if t else "–"

    def target(column):
        return f"{100 * float(t[column]):g}%" if t else "–"

    for key, title in (("big", f"median \\|err\\| ≥ {large} ≤ {target('target_median_abs_err_large')}"),
                       ("all", f"median \\|err\\| all sizes ≤ {target('target_median_abs_err_all')}"),
                       ("xover", f"measured crossovers predicted within {x} in size: all"),
                       ("xover_iv", "(second count) the same, or inside the measured "
                        "crossover's CI interval"),
                       ("pick", f"model's pick within the measured best's CI ≥ {target('target_picks')}"),
                       ("regret", f"median regret ≤ {target('target_median_regret')}")):
        out.append(f"| {title} | " + " | ".join(cell(lv, key) for lv in levels) + " |")
    out.append("")
    out.append(f"The crossover target is the strict count: the predicted size within {x} of the "
               "measured one. The second count, beside it and not a target, also counts a "
               "prediction that lies inside the measured crossover's CI interval: from the last "
               "measured size below the crossover at which the old winner is significantly "
               "faster to the first size above it at which the new one is (CIs separated by "
               "more than the minimum effect: `collbench fit`'s rule, its crossovers.csv "
               "columns `measured_crossover_lo_B`, `measured_crossover_hi_B`). The "
               "measurement cannot place the crossing more finely than that; a crossover the "
               "model does not predict fails both. Why each strict miss is missed: "
               "`scripts/testbed/classify_crossovers.py`.\n")
    line = grid_line(d, main, meas) if main else None
    if line:
        out.append(line)
    if main and main != "calibration":
        out.append(miss_classes(d) + "\n")
    if main:
        lv = main
        out.append(f"<details><summary>{lv}: error per algorithm, and every measured crossover</summary>\n")
        out.append("| collective | algorithm | median err (signed) | median \\|err\\| | rows |")
        out.append("|---|---|---|---|---|")
        for r in level_errors(d, lv):
            out.append(f"| {r['collective']} | {r['algorithm']} | "
                       f"{fmt_pct(float(r['median_signed_err_all']))} | "
                       f"{fmt_pct(float(r['median_abs_err_all']))} | {r['rows_all']} |")
        out.append("")
        out.append("Measured crossovers by rank count (CPU-limited ones left out): how many the "
                   f"model puts within {x}, how many it does not predict at all, and how many of the "
                   "rest it puts below the measured size.\n")
        out.append(f"| p | measured | within {x} | not predicted | predicted > {x} below | "
                   f"predicted > {x} above |")
        out.append("|---|---|---|---|---|---|")
        for p, (n_x, good, none, below) in sorted(xby_p[lv].items()):
            out.append(f"| {p} | {n_x} | {good} | {none} | {below} | {n_x - good - none - below} |")
        out.append("")
        out.append("| collective | p | pair | measured faster below | measured (B) | predicted (B) "
                   f"| ratio | within {x} | CI interval (B) |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        out.extend(xrows[lv])
        out.append("\n</details>\n")
    charged_out = grades[main]["picks_left_out"] if main else 0

    # ---- CPU-limited region
    by = {}
    for c, p, s, a in cpu_rows:
        by.setdefault((c, p), []).append((s, a))
    out.append(f"**CPU-limited rows** (left out above): {len(cpu_rows)} of {len(preds)} "
               f"rows; {charged_out} (collective, p, size) cells left out of the pick count.")
    for (c, p), v in sorted(by.items()):
        algos = sorted({a for _, a in v})
        out.append(f"- {c} p={p}: {len(v)} rows, sizes {min(s for s, _ in v)}–"
                   f"{max(s for s, _ in v)} B ({', '.join(algos)})")
    out.append("")


def configured_of(d):
    """{transport: (α, bytes/s)} the setting was configured with (fit/network.csv): the
    link's latency plus the stack's own overhead, and its rate."""
    net = network_row(d)
    return {"mpi": (float(net["expected_alpha_s"]), float(net["rate_B_per_s"]))}


def answers(d, settings):
    """The answer-first sections: from recommendations.csv at the top of the study (one
    file for every setting, its `setting` column) or in each setting's folder; the α-β
    lines from each setting's fit."""
    if os.path.isfile(os.path.join(d, "recommendations.csv")):
        out = report_answer.section_recommendation(d, HOW_TO)
        out += report_answer.section_winners(d, os.path.join(d, "plots"),
                                             "`collbench plot DIR` draws them.")
        for s in settings:
            out += report_answer.section_alpha_beta(
                os.path.join(d, s), configured_of(os.path.join(d, s)),
                heading=f"## How well α-β predicts it: {s}")
        return out + report_answer.section_library(d)
    out = []
    for s in settings:
        sd = os.path.join(d, s)
        if os.path.isfile(os.path.join(sd, "recommendations.csv")):
            out += [f"# {s}: the answer\n"]
            out += report_answer.answer_first(sd, os.path.join(sd, "plots"), HOW_TO,
                                              f"`collbench plot {s}` draws them.",
                                              configured=configured_of(sd))
    if not out:
        out = ["## Which algorithm to use\n",
               "**No recommendation here:** `recommendations.csv` is absent from this "
               "directory and from every setting in it. `collbench recommend DIR --out DIR` "
               "writes it (with `winners.csv`, whose maps `collbench plot DIR` draws); then "
               "run this report again.\n"]
    return out


def build(d):
    settings = sorted(x for x in os.listdir(d)
                      if os.path.exists(os.path.join(d, x, "fit", "fit.csv")))
    if not settings:
        raise results_csv.InputError(f"{d}: no setting with fit/fit.csv in it (accepted: the "
                                     "folder scripts/testbed/study.sh writes)")
    out = ["# Testbed study: the model against the configured network\n",
           "Each setting below is a testbed of network namespaces on this machine "
           "(scripts/testbed.sh) with a configured one-way latency and bandwidth; collbench "
           "calibrated, swept and fitted there exactly as on a cluster. Targets from issue #10; "
           "the same sweep and rules for every setting, nothing tuned per setting.\n"]
    out += answers(d, settings)
    out.append("# Appendix: each setting in detail\n")
    for s in settings:
        report_setting(os.path.join(d, s), s, out)
    return out


def main(argv):
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print("usage: report.py DIR (a testbed study folder)", file=sys.stderr)
        return EXIT_BAD_INPUT
    d = argv[0]
    path = os.path.join(d, "report.md")
    try:
        text = "\n".join(build(d)) + "\n"
    except (KeyError, ValueError, IndexError, StopIteration, ZeroDivisionError) as e:
        # A file short of a column or a row the testbed study always writes.
        raise results_csv.InputError(f"{d}: malformed testbed study ({type(e).__name__}: "
                                     f"{results_csv.shown(e)})")
    except OSError as e:  # an input file the study writes is missing or unreadable
        raise results_csv.InputError(f"cannot read {e.filename or d}: {e.strerror}")
    write_atomically(path, lambda f: f.write(text), binary=False)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    import script_main
    sys.exit(script_main.run("report.py", main, sys.argv[1:]))
