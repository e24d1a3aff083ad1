#!/usr/bin/env python3
"""The report of one stragglers validation directory (scripts/arrival/validate.sh's OUT,
docs/stragglers.md): DIR/report.md and DIR/plots/arrival.png from what `collbench
arrival-check` wrote into DIR/check (figures, verdicts and crossovers computed in C++;
this only formats and draws them).

    /usr/bin/python3 scripts/report_arrival_validation.py DIR

scripts/arrival/report.sh runs the check first. A directory without DIR/check/
arrival-summary.csv is refused with one line and exit 2, and nothing is written.
"""
import os
import sys

import plot
import plot_arrival
import script_main
from output_file import prepare_directory, write_atomically
from report_arrival import percent, summary_table
from results_csv import InputError, num, read_csv, size_label, time_label

CROSSOVER_COLUMNS = ["collective", "ranks", "bytes", "kind", "algo_a", "algo_b", "a_faster_after",
                     "measured_delay_us", "measured_lo_us", "measured_hi_us",
                     "predicted_delay_us", "within_2x"]


def setting_line(directory):
    """Where it was measured, from setting.txt (the testbed) or the rows' transport."""
    path = os.path.join(directory, "setting.txt")
    if not os.path.isfile(path):
        return "one host (no setting.txt)"
    with open(path) as f:
        kv = dict(line.strip().split("=", 1) for line in f if "=" in line)
    try:
        lat = float(kv["latency_us"])
        bw = float(kv["bandwidth_bps"])
    except (KeyError, ValueError):
        raise InputError(f"{path}: needs latency_us= and bandwidth_bps= lines")
    return (f"testbed: {kv.get('hosts', '?')} hosts, one-way latency {time_label(lat)}, "
            f"{bw / 1e6:g} Mbit/s, {kv.get('cores', '?')} cores")


def crossover_lines(path):
    rows = read_csv(path, CROSSOVER_COLUMNS, empty_ok=True)
    if not rows:
        return ["No skew crossover was measured (no pair's CIs separate on both sides of a "
                "flip).", ""]
    out = ["| collective | p | size | pattern | pair (faster after the flip first) | measured "
           "delay (between) | predicted | within |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        first, second = ((r["algo_a"], r["algo_b"]) if r["a_faster_after"] == "1"
                         else (r["algo_b"], r["algo_a"]))
        pred = ("none near" if r["predicted_delay_us"] == ""
                else time_label(num(path, r, "predicted_delay_us")))
        out.append(
            f"| {r['collective']} | {r['ranks']} | {size_label(num(path, r, 'bytes'))} | "
            f"{r['kind']} | {first} / {second} | "
            f"{time_label(num(path, r, 'measured_delay_us'))} "
            f"({time_label(num(path, r, 'measured_lo_us'))}–"
            f"{time_label(num(path, r, 'measured_hi_us'))}) | {pred} | "
            f"{'yes' if r['within_2x'] == '1' else 'no'} |")
    return out + [""]


def report(directory):
    check = os.path.join(directory, "check")
    summary = os.path.join(check, "arrival-summary.csv")
    if not os.path.isfile(summary):
        raise InputError(f"{directory}: no check/arrival-summary.csv (run scripts/arrival/"
                         "report.sh DIR, which runs collbench arrival-check first)")
    rows = read_csv(summary, ["scope", "err_target", "picks_target", "crossover_factor"])
    t = rows[0]
    plots = os.path.join(directory, "plots")
    prepare_directory(plots)
    plot.load_matplotlib()
    png = plot_arrival.plot_arrival(plot.plt, plot.ps, plot.save,
                                    os.path.join(check, "arrival-cases.csv"), plots)
    name = os.path.basename(os.path.normpath(directory))
    lines = [f"# Stragglers validation: {name}", "",
             f"Measured on {setting_line(directory)}; every launch is in `commands.txt`, "
             "the calibration that prices the rows is `calibration.csv`. Figures from "
             "`check/arrival-summary.csv` (`collbench arrival-check --all-terms`), judged "
             f"there: median |err| of the time after the last arrival ≤ "
             f"{percent(summary, t, 'err_target')}, the most tolerant algorithm picked "
             f"within the measured CI in ≥ {percent(summary, t, 'picks_target')} of cells, "
             f"skew crossovers within {num(summary, t, 'crossover_factor'):g}×.", ""]
    lines += summary_table(summary, read_csv(summary, ["scope"])) + [""]
    lines += ["## Skew crossovers (`check/arrival-crossovers.csv`)", ""]
    lines += crossover_lines(os.path.join(check, "arrival-crossovers.csv"))
    if png:
        lines += ["![arrival](plots/arrival.png)", ""]
    text = "\n".join(lines)
    write_atomically(os.path.join(directory, "report.md"), lambda f: f.write(text + "\n"),
                     binary=False)
    print(f"report-arrival-validation: wrote {os.path.join(directory, 'report.md')}")


def main(argv):
    if len(argv) != 1:
        raise InputError("usage: report_arrival_validation.py DIR")
    report(argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(script_main.run("report-arrival-validation", main, sys.argv[1:]))
