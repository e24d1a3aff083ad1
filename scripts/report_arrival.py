"""report.md's stragglers section (docs/stragglers.md): what `collbench
arrival-check` wrote for the study's arrival stage (arrival/check/
arrival-summary.csv, its figures and targets, computed in C++) and the plot
plot_arrival.py drew. Nothing here computes a figure or judges a target.
Standard library only.
"""
import os

from results_csv import band_labels, num, read_csv

SUMMARY_COLUMNS = ["scope", "rows_large", "median_abs_err_large", "rows_small",
                   "median_abs_err_small", "cells", "picks_right", "mean_tied_fraction", "crossovers", "predicted_crossovers",
                   "crossovers_within_2x", "err_target", "err_met", "picks_target", "picks_met",
                   "crossovers_met", "large_from_B", "crossover_factor"]


def percent(path, r, column):
    return "–" if r[column] == "" else f"{100 * num(path, r, column):.1f}%"


def verdict(flag):
    return "met" if flag == "1" else "missed"


def summary_table(path, rows):
    """The arrival-summary.csv rows at `path` as a markdown table, one line per scope."""
    large = band_labels(path, rows[0])["large"]
    factor = f"{num(path, rows[0], 'crossover_factor'):g}×"
    out = [f"| scope | median \\|err\\| ≥ {large} | below | most tolerant picked within the CI | "
           f"algorithms the measurement ties (mean) | skew crossovers within {factor} |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(
            f"| {r['scope']} | {percent(path, r, 'median_abs_err_large')} ({r['rows_large']} rows, "
            f"{verdict(r['err_met'])}) | {percent(path, r, 'median_abs_err_small')} "
            f"({r['rows_small']} rows) | {r['picks_right']} of {r['cells']} "
            f"({verdict(r['picks_met'])}) | {percent(path, r, 'mean_tied_fraction')} | "
            f"{r['crossovers_within_2x']} of {r['crossovers']}"
            f"{'' if r['crossovers'] == '0' else ' (' + verdict(r['crossovers_met']) + ')'}; "
            f"the model crosses {r['predicted_crossovers']} times |")
    return out


def section_arrival(directory):
    """## Stragglers; [] when the study has no arrival stage."""
    check = os.path.join(directory, "arrival", "check")
    path = os.path.join(check, "arrival-summary.csv")
    if not os.path.isdir(os.path.join(directory, "arrival")):
        return []
    out = ["## Stragglers: one rank late", ""]
    if not os.path.isfile(path):
        return out + ["The arrival stage measured (`arrival/arrival.csv`) but was not checked: "
                      "`collbench arrival-check DIR/arrival/arrival.csv --params "
                      "DIR/calibration.csv --all-terms --out DIR/arrival/check`.", ""]
    rows = read_csv(path, SUMMARY_COLUMNS)
    # The size edge and the crossover factor of the rules, as arrival-check applied them.
    large = band_labels(path, rows[0])["large"]
    factor = f"{num(path, rows[0], 'crossover_factor'):g}×"
    commands = os.path.join(directory, "arrival", "commands.txt")
    out += ["Every algorithm of one collective, with one rank entering late by 0.5, 1, 2 and 5 "
            "times the fastest algorithm's no-skew time (`run --arrival one-late:DELAY`, the "
            "window start). The time after the last arrival is the collective's own cost under "
            "the skew; the model prices it with each rank's clock starting at its arrival "
            "(`predict --arrival`, the calibration's terms). Figures from "
            "`arrival/check/arrival-summary.csv` (`collbench arrival-check`); the exact "
            f"commands are in `arrival/commands.txt`{'' if os.path.isfile(commands) else ' (absent)'}.",
            ""] + summary_table(path, rows)
    t = rows[0]
    out += ["", "Targets as for the testbed validation (docs/stragglers.md), as "
            f"`arrival-check` judged them: median |err| ≤ {percent(path, t, 'err_target')} "
            f"at ≥ {large}, the most tolerant algorithm picked within the measured CI in ≥ "
            f"{percent(path, t, 'picks_target')} of "
            f"cells, skew crossovers predicted within {factor}. One host's cores shared by every rank: "
            "these figures show the stage works, the validation is on the testbed.", ""]
    png = os.path.join(directory, "plots", "arrival.png")
    if os.path.isfile(png):
        out += ["![arrival](plots/arrival.png)", ""]
    return out
