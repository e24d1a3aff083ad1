#!/usr/bin/python3
"""Writes DIR/report.md: the answer of a study or run first, then its evidence,
from its CSVs alone.

    /usr/bin/python3 scripts/report.py RESULTS_DIR        (also: collbench report DIR)

report.md opens with the recommendation (recommendations.csv of collbench
recommend), the winners maps (plots/winners-*.png, drawn by plot.py from
winners.csv), how well α-β predicts it (fit/{fit,accuracy,crossovers}.csv) and
the best schedule against the library's own (recommendations.csv), and a study's
stragglers section (arrival/check/, report_arrival.py); the rest
(bandwidth, fitted parameters, ablation, per-row errors, crossovers, plots)
follows in an appendix. It reads sweep-*.csv (or, outside a study, every
results CSV in DIR), calibration*.csv, checks.csv (the calibrations' drift and
the load, judged by `collbench report`: models/study_checks.hpp), fit/*.csv,
spread-*/ and plots/*.png;
a section whose input is absent says so. Nothing is measured here.
A malformed input is one line on stderr and exit status 2; a failed write
exit 4; report.md is replaced atomically and never written through a link.
Needs only the Python standard library.
"""
import argparse
import os
import sys
from collections import defaultdict

from output_file import prepare_directory, write_atomically
from report_answer import answer_first, md
from report_arrival import section_arrival
from report_memory import section_memory
from model_spread_summary import judged, large_label, over_pairs, shown_levels
from results_csv import (InputError, band_labels, find_sweeps, load_sweep_files, num, read_csv,
                         size_label)

BASELINES = {"mpi", "nccl"}


def sign_sentence(what, value):
    """One sentence about the sign of a median signed error, generated from the number."""
    if value is None:
        return f"{what}: no rows."
    if value > 0:
        return f"{what}: the model over-predicts (median {value:+.0%})."
    if value < 0:
        return f"{what}: the model under-predicts (median {value:+.0%})."
    return f"{what}: no bias (median 0%)."


def size3(b):
    """A crossover size with 3 significant digits."""
    return size_label(b, digits=3)


def fmt_bw(gbps):
    return f"{gbps:.2f}"


def peak_busbw(rows):
    """(transport, collective, ranks) -> algorithm -> (peak busbw GB/s, at bytes)."""
    peak = defaultdict(dict)
    for r in rows:
        key = (r["transport"], r["collective"], int(r["ranks"]))
        bw = num(r["_path"], r, "busbw_GBps")
        if bw > peak[key].get(r["algorithm"], (-1, 0))[0]:
            peak[key][r["algorithm"]] = (bw, num(r["_path"], r, "bytes"))
    return peak


def section_bandwidth(rows, memcpy, memcpy_in_cache):
    out = ["## Peak bus bandwidth", ""]
    if memcpy:
        out.append(f"memcpy bandwidth measured in the same study (calibrate, both ranks copying "
                   f"at once): **{memcpy:.2f} GB/s** out of cache (64 MiB)"
                   + (f", **{memcpy_in_cache:.2f} GB/s** in cache (256 KiB)"
                      if memcpy_in_cache else "") + "; the busbw plots draw both as ceilings.")
    out += ["", "busbw uses nccl-tests' factors (all-reduce 2(p-1)/p; the others (p-1)/p); "
            "each cell is the algorithm's best over all sizes and the size it was reached at "
            "(usually one whose buffers fit in cache, so it is not comparable with the "
            "out-of-cache memcpy above).", ""]
    peak = peak_busbw(rows)
    algos = sorted({a for v in peak.values() for a in v}, key=lambda a: (a in BASELINES, a))
    out.append("| transport | collective | ranks | " + " | ".join(algos) + " |")
    out.append("|---" * (len(algos) + 3) + "|")
    for (transport, coll, ranks), per in sorted(peak.items()):
        cells = [f"{fmt_bw(per[a][0])} ({size_label(per[a][1])})" if a in per else "–"
                 for a in algos]
        out.append(f"| {md(transport)} | {md(coll)} | {ranks} | " + " | ".join(cells) + " |")
    out.append("")
    return out


def section_params(directory, cal):
    path = os.path.join(directory, "fit", "fit.csv")
    if not os.path.exists(path):
        return ["## Fitted α, β, γ", "", "No fit/ here: `collbench fit RESULTS.csv --out "
                "DIR/fit` fits the model.", ""]
    rows = read_csv(path, ["scope", "transport", "alpha_s", "beta_s_per_B", "gamma_s_per_B"])
    out = ["## Fitted α, β, γ", "",
           "| source | transport | α (µs) | β as bandwidth (GB/s) | γ as reduce bandwidth (GB/s) |",
           "|---|---|---|---|---|"]

    def cell(v, kind, lo="", hi=""):
        if v in ("", None):
            return "not identified"
        v = float(v)
        if kind == "alpha":
            text = f"{v * 1e6:.3g}"
            if lo and hi:
                text += f" [{float(lo) * 1e6:.3g}, {float(hi) * 1e6:.3g}]"
            return text
        text = f"{1 / v / 1e9:.3g}" if v > 0 else "∞ (fit gives 0: too small to see)"
        if lo and hi and float(lo) > 0:
            text += f" [{1 / float(hi) / 1e9:.3g}, {1 / float(lo) / 1e9:.3g}]"
        return text

    for r in rows:
        if r["scope"] not in ("global", "calibration"):
            continue
        label = "global fit (in-sample)" if r["scope"] == "global" else "calibration (ping-pong)"
        out.append(f"| {label} | {r['transport']} | "
                   f"{cell(r['alpha_s'], 'alpha', r.get('alpha_s_lo'), r.get('alpha_s_hi'))} | "
                   f"{cell(r['beta_s_per_B'], 'beta', r.get('beta_s_per_B_lo'), r.get('beta_s_per_B_hi'))} | "
                   f"{cell(r['gamma_s_per_B'], 'gamma', r.get('gamma_s_per_B_lo'), r.get('gamma_s_per_B_hi'))} |")
    out += ["", "Brackets: 95% bootstrap confidence intervals. Bandwidths are 1/β and 1/γ.", ""]
    return out


ERROR_COLUMNS = ["params", "transport", "collective", "algorithm", "median_abs_err_large",
                 "worst_abs_err_large", "median_signed_err_mid", "median_signed_err_top",
                 "median_abs_err_small", "large_from_B", "mid_to_B", "top_from_B"]


def section_error(directory):
    """The model's error per algorithm and its sign per transport, as `collbench fit`
    computed them (fit/errors.csv: medians per size band)."""
    path = os.path.join(directory, "fit", "errors.csv")
    if not os.path.exists(path):
        return []
    rows = read_csv(path, ERROR_COLUMNS)
    band = band_labels(path, rows[0])  # the sizes fit split the errors at
    large, mid_band, top_band = band["large"], band["mid"], band["top"]

    def cell(r, column, spec):
        return "–" if r[column] == "" else format(num(path, r, column), spec)

    out = ["## Model error", "",
           "rel_err = (predicted − measured) / measured. *global*: the transport-wide fit "
           "(in-sample); *calibration*: α, β, γ from ping-pong and the kernel alone "
           f"(out-of-sample). Nothing is excluded; sizes below {large} are shown separately "
           "because latency noise and protocol knees dominate there.", "",
           f"| params | transport | collective | algorithm | median abs err ≥ {large} | worst ≥ {large} | median signed err {mid_band} | median signed err {top_band} | median abs err < {large} |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        # params config (each configuration's own line) is model-report.md's.
        if not r["algorithm"] or r["params"] == "config":
            continue
        out.append(f"| {md(r['params'])} | {md(r['transport'])} | {r['collective']} | "
                   f"{md(r['algorithm'])} | {cell(r, 'median_abs_err_large', '.0%')} | "
                   f"{cell(r, 'worst_abs_err_large', '.0%')} | "
                   f"{cell(r, 'median_signed_err_mid', '+.0%')} | "
                   f"{cell(r, 'median_signed_err_top', '+.0%')} | "
                   f"{cell(r, 'median_abs_err_small', '.0%')} |")
    # The sign of the error per parameter set and transport, stated from the data.
    out += ["", "The sign of the error (median signed rel_err over every algorithm):", ""]
    for r in rows:
        if r["algorithm"]:
            continue
        mid = num(path, r, "median_signed_err_mid") if r["median_signed_err_mid"] else None
        top = num(path, r, "median_signed_err_top") if r["median_signed_err_top"] else None
        out.append(f"- {md(r['params'])}, {md(r['transport'])}: "
                   f"{sign_sentence(mid_band, mid)} {sign_sentence(top_band, top)}")
    out.append("")
    return out


def mark_met(v, target, met):
    """A fraction with accuracy.csv's verdict on it (its met_* cell), to one decimal:
    "13.6% ✓", or missed with by how much ("89.6% ✗ (-0.4 points)": rounded to whole
    percents 43/48 read "90% ✗")."""
    if v in ("", None):
        return "–"
    v = float(v)
    return f"{100 * v:.1f}% ✓" if met == "1" else \
        f"{100 * v:.1f}% ✗ ({(v - float(target)) * 100:+.1f} points)"


def percent(fraction):
    """A target fraction of accuracy.csv as a percent: "0.2" -> "20%"."""
    return f"{100 * float(fraction):g}%"


ACCURACY_COLUMNS = ["params", "transport", "scope", "median_abs_err_large", "median_abs_err_small",
                    "worst_collective", "worst_collective_median_abs_err", "picks_right", "picks",
                    "median_regret", "large_from_B"] + [
    f"{kind}_{figure}" for figure in ("median_abs_err_large", "median_abs_err_small",
                                      "worst_collective", "picks", "median_regret")
    for kind in ("target", "met")]


def section_accuracy(directory):
    """The targets and the ablation, as `collbench fit` graded them (fit/accuracy.csv, its
    rows over every measured row): the figures, the targets and their verdicts are the
    fit's, the same as the console and fit/model-report.md."""
    path = os.path.join(directory, "fit", "accuracy.csv")
    if not os.path.exists(path):
        return []
    rows = [r for r in read_csv(path, ACCURACY_COLUMNS) if r["scope"] == "all"]
    if not rows:
        return []
    t = rows[0]
    large = band_labels(path, t)["large"]
    # The terms as the fit lists them (summary.csv, from models/terms.hpp's kTerms).
    summary = os.path.join(directory, "fit", "summary.csv")
    terms = [r["text"] for r in read_csv(summary, ["kind", "text"]) if r["kind"] == "term"] \
        if os.path.exists(summary) else []
    out = ["## Model accuracy against the targets (ablation)", "",
           "Out of sample: `calibration` is the α-β-γ baseline from microbenchmarks alone; each "
           "`+` row adds the named calibrated terms cumulatively, each priced and fitted as "
           "below (docs/model.md). `global` is the in-sample fit. Targets: median "
           f"|err| ≤ {percent(t['target_median_abs_err_large'])} at ≥ {large}, "
           f"≤ {percent(t['target_median_abs_err_small'])} below, worst collective "
           f"≤ {percent(t['target_worst_collective'])}, picks within the measured best's CI "
           f"≥ {percent(t['target_picks'])}, median "
           f"regret ≤ {percent(t['target_median_regret'])}.", ""]
    out += [f"- {text}" for text in terms] + ([""] if terms else [])
    out += [f"| params | transport | median \\|err\\| ≥ {large} | < {large} | worst collective | "
           "model picks the best (within CI) | median regret |",
           "|---|---|---|---|---|---|---|"]

    def mark(r, figure, value):
        return mark_met(value, r[f"target_{figure}"], r[f"met_{figure}"])

    for r in rows:
        picks = int(r["picks"])
        share = int(r["picks_right"]) / picks if picks else None
        out.append(f"| {md(r['params'])} | {md(r['transport'])} | "
                   f"{mark(r, 'median_abs_err_large', r['median_abs_err_large'])} | "
                   f"{mark(r, 'median_abs_err_small', r['median_abs_err_small'])} | "
                   f"{md(r['worst_collective'])} "
                   f"{mark(r, 'worst_collective', r['worst_collective_median_abs_err'])} | "
                   f"{r['picks_right']}/{picks} = {mark(r, 'picks', share)} | "
                   f"{mark(r, 'median_regret', r['median_regret'])} |")
    out.append("")
    return out


def section_spread(directory):
    """The model over several calibrate + sweep pairs (study.sh's spread-<transport>/, made by
    scripts/model_spread.sh): on a VM whose speed drifts between runs one pair's figures can
    meet or miss a target by chance, so the medians over the pairs are the figures to judge."""
    found = []
    for t in ("mpi", "ipc"):
        d = os.path.join(directory, f"spread-{t}")
        n = 0
        while os.path.exists(os.path.join(d, f"pair-{n + 1}", "fit", "accuracy.csv")):
            n += 1
        if n:
            found.append((t, d, n))
    if not found:
        return []
    out = ["## The model over several runs", "",
           "The same calibrate, sweep (p = 2, every collective and algorithm, 8 B–64 MiB) and "
           "fit as above, repeated as separate pairs (`scripts/model_spread.sh DIR --transport T "
           "--pairs N`; each pair's files and summary.md in spread-T/). On this VM cross-core "
           "speed drifts between runs, so one pair can meet or miss a target by a few points "
           "by chance; these medians over the pairs are the figures to judge.", "",
           "| transport | level | figure | median over pairs | min–max | target | |",
           "|---|---|---|---|---|---|---|"]
    for t, d, n in found:
        judged_rows = judged(d)
        large = large_label(d)
        for name in shown_levels(judged_rows):
            for label, med, lo, hi, target, met in over_pairs(judged_rows, name, large):
                out.append(f"| {t} ({n} pairs) | {md(name)} | {label} | {med:.1f}% | "
                           f"{lo:.1f}–{hi:.1f}% | {target} | {'met' if met else '**missed**'} |")
    out.append("")
    return out


CHECK_COLUMNS = ["kind", "transport", "quantity", "before", "after", "ratio", "median", "max",
                 "ranks", "flag"]


def checks(directory):
    """checks.csv's rows (`collbench report` writes it: the calibrations' drift and the
    load, judged in C++, models/study_checks.hpp), or None when it is absent."""
    path = os.path.join(directory, "checks.csv")
    if not os.path.isfile(path):
        return None
    return read_csv(path, CHECK_COLUMNS, empty_ok=True)


def section_calibration_stability(directory):
    """Calibrations taken before and after the sweeps (study.sh), side by side, with the
    parameters checks.csv flags as moved: the out-of-sample errors then say more about the
    machine than about the model."""
    rows = [r for r in checks(directory) or [] if r["kind"] == "calibration"]
    if not rows:
        return []
    labels = {"alpha_us": "α (µs)", "bandwidth_GBps": "1/β (GB/s)",
              "reduce_bandwidth_GBps": "1/γ (GB/s)", "memory_GBps": "memory copy (GB/s)"}
    out = ["## Calibration before and after the sweeps", "",
           "| transport | parameter | before | after | after / before |",
           "|---|---|---|---|---|"]
    for r in rows:
        ratio = float(r["ratio"]) if r["ratio"] else float("nan")
        flag = " **moved**" if r["flag"] == "1" else ""
        out.append(f"| {md(r['transport'])} | {labels[r['quantity']]} | {float(r['before']):.3g} | "
                   f"{float(r['after']):.3g} | {ratio:.2f}{flag} |")
    limits = {r.get("limit") for r in rows if r.get("limit")}
    limit = f"a factor of {float(limits.pop()):g}" if len(limits) == 1 else "its limit"
    out += ["", f"A parameter marked **moved** changed by more than {limit} within the study: "
            "the machine changed mode (latency on these virtual machines is bimodal, "
            "and load changes bandwidth), so out-of-sample errors at those sizes measure "
            "the machine, not the model.", ""]
    return out


def section_crossovers(directory):
    """Crossovers as `collbench fit` counted them: only where the 95% CIs separate on both
    sides, identical schedules grouped (a=b)."""
    path = os.path.join(directory, "fit", "crossovers.csv")
    if not os.path.exists(path):
        return []
    rows = read_csv(path, ["kind", "params", "transport", "collective", "ranks", "algo_a",
                           "algo_b", "predicted_crossover_B", "measured_crossover_B"])
    out = ["## Crossovers: predicted vs measured", "",
           "A measured crossover counts only where the two algorithms' 95% confidence intervals "
           "separate on both sides of it; algorithms with identical schedules at that rank count "
           "form one group (a=b) and are not paired. Sizes to 3 significant digits. Pairs "
           "crossing on neither side are left out.", "",
           "| params | transport | collective | ranks | pair | predicted | measured |",
           "|---|---|---|---|---|---|---|"]
    shown = 0
    for r in rows:
        if r["kind"] != "pair":
            continue
        pred, meas = r["predicted_crossover_B"], r["measured_crossover_B"]
        if not pred and not meas:
            continue
        shown += 1
        out.append(f"| {md(r['params'])} | {md(r['transport'])} | {r['collective']} | "
                   f"{r['ranks']} | {md(r['algo_a'])} vs {md(r['algo_b'])} | "
                   f"{size3(float(pred)) if pred else 'none'} | "
                   f"{size3(float(meas)) if meas else 'none'} |")
    if not shown:
        out.append("| – | – | – | – | no pair crosses in the measured range | – | – |")
    out.append("")
    return out


def section_load(directory):
    """The machine's load while measuring (CSV columns load_avg_1m, procs_running), as
    checks.csv sums it up and judges it."""
    found = checks(directory)
    if found is None:
        return ["Load while measuring: not checked (`collbench report DIR` checks it).", ""]
    load = {r["quantity"]: r for r in found if r["kind"] == "load"}
    if "load_avg_1m" not in load:
        return ["Load while measuring: not recorded (results from an older collbench).", ""]
    avg, running = load["load_avg_1m"], load.get("procs_running")
    text = (f"Load while measuring: 1-minute load average median {float(avg['median']):.2f} "
            f"(max {float(avg['max']):.2f})"
            + (f"; runnable threads median {float(running['median']):g} "
               f"(max {float(running['max']):g})" if running else "")
            + f", with at most {float(avg['ranks']):g} ranks of ours.")
    if avg["flag"] == "1":
        text = ("**Warning:** the machine was busy with other work while measuring. " + text +
                " Times are inflated and noisy; compare ratios measured in the same run only.")
    return [text, ""]


def calibration(directory):
    """calibration.csv's row, or {} when the directory has none."""
    path = os.path.join(directory, "calibration.csv")
    if not os.path.exists(path):
        return {}
    return read_csv(path, ["alpha_s", "beta_s_per_B", "gamma_s_per_B"])[0]


def header_lines(directory, paths, rows):
    first = rows[0]
    lines = [f"# collbench results: {md(os.path.basename(os.path.normpath(directory)))}", "",
             f"Host `{first.get('host') or '?'}`, collbench {first.get('collbench_version') or '?'} "
             f"(git {first.get('git_rev') or '?'}), {(first.get('mpi_version') or '').strip() or 'MPI ?'}. "
             f"Files: {', '.join(os.path.basename(p) for p in paths)}; every row verified "
             f"(wrong elements in all rows: {sum(int(r.get('wrong') or 0) for r in rows)}).", ""]
    over = {r["transport"] for r in rows if r.get("oversubscribed") == "1"}
    if over:
        lines += [f"**Warning:** ranks outnumbered cores in {', '.join(sorted(over))} rows: "
                  "those timings measure the OS scheduler more than the algorithms.", ""]
    return lines


def appendix(directory, rows, cal):
    memcpy = num(cal["_path"], cal, "memcpy_GBps") if cal.get("memcpy_GBps") else None
    memcpy_in_cache = (num(cal["_path"], cal, "memcpy_in_cache_GBps")
                       if cal.get("memcpy_in_cache_GBps") else None)
    lines = ["# Appendix: the evidence", ""]
    if any(r["transport"] != "sim" for r in rows):  # a simulator's load means nothing
        lines += section_load(directory)
    lines += section_bandwidth(rows, memcpy, memcpy_in_cache)
    lines += section_memory(directory)
    lines += section_params(directory, cal)
    lines += section_accuracy(directory)
    lines += section_spread(directory)
    lines += section_calibration_stability(directory)
    lines += section_error(directory)
    lines += section_crossovers(directory)
    plots = os.path.join(directory, "plots")
    pngs = sorted(p for p in os.listdir(plots) if p.endswith(".png")
                  and not p.startswith(("winners-", "crossover-", "arrival"))) \
        if os.path.isdir(plots) else []
    lines += ["## Plots", ""]
    if not pngs:
        lines += ["None yet: `/usr/bin/python3 scripts/plot.py DIR` (or `collbench plot DIR`) "
                  "draws them.", ""]
    for png in pngs:
        lines += [f"![{png[:-4]}](plots/{png})", ""]
    if os.path.exists(os.path.join(directory, "fit", "model-report.md")):
        lines += ["Full model report (per-configuration lines, knees, MPICH selection): "
                  "[fit/model-report.md](fit/model-report.md)", ""]
    return lines


def build(directory):
    """report.md's lines; InputError for a missing or malformed input."""
    if not os.path.isdir(directory):
        raise InputError(f"{directory}: not a directory")
    paths = find_sweeps(directory)
    if not paths:
        raise InputError(f"{directory}: no sweep-*.csv or other results CSV found")
    rows = load_sweep_files(paths)
    lines = header_lines(directory, paths, rows)
    lines += answer_first(
        directory, os.path.join(directory, "plots"),
        how_to="`collbench recommend DIR --out DIR` writes it from the sweeps here "
               "(scripts/study.sh does); then `collbench report DIR` again.",
        plot_hint="`collbench plot DIR` draws them.")
    lines += section_arrival(directory)
    lines += appendix(directory, rows, calibration(directory))
    return lines


def main(argv):
    parser = argparse.ArgumentParser(
        prog="report.py", description=__doc__.split("\n\n")[0],
        epilog="Writes RESULTS_DIR/report.md. Exit status 2 on a missing or malformed input, "
               "4 when the write fails.")
    parser.add_argument("results_dir", metavar="RESULTS_DIR",
                        help="a study directory (scripts/study.sh) or a directory of results CSVs")
    args = parser.parse_args(argv)
    directory = args.results_dir
    target = os.path.join(directory, "report.md")
    if os.path.isdir(directory):  # refused before any work, as collbench's outputs are
        prepare_directory(directory, "report.md into")
    text = "\n".join(build(directory))
    write_atomically(target, lambda f: f.write(text), binary=False)
    print(f"report written to {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    import script_main
    sys.exit(script_main.run("report.py", main, sys.argv[1:]))
