#!/usr/bin/python3
"""Writes FIT_DIR/model-report.md, the readable summary of `collbench fit`,
from the CSVs the fit wrote there (`collbench fit` runs this script itself).

    /usr/bin/python3 scripts/model_report.py FIT_DIR

Sections: the targets and the ablation (accuracy.csv, scope all), the fitted
parameters per transport and the calibrations (fit.csv), what the global fit
left out and why (summary.csv), the model's error per algorithm (errors.csv),
predicted vs measured crossovers and the best algorithm per size
(crossovers.csv: kind pair, best_group, best), and the per-configuration lines
with their knees (fit.csv, scope config). Times in µs, bandwidths in GB/s
(GB = 1e9 B). Every figure, verdict and count is the fit's (models/): this
file only formats them. A malformed input is one line on stderr and exit
status 2; a failed write exit 4; model-report.md is replaced atomically and
never written through a link. Needs only the Python standard library.
"""
import argparse
import math
import os
import sys

from output_file import prepare_directory, write_atomically
from report_answer import md
from results_csv import InputError, band_labels, read_csv, size_label

REPORT = "model-report.md"


def value(cell):
    """A numeric cell as float; NaN for an empty one (the fit's "no value")."""
    return float(cell) if cell not in ("", None) else math.nan


def us(s):
    return "–" if math.isnan(s) else f"{s * 1e6:.3g}"


def gbps(s_per_b):
    """Bandwidth in GB/s from seconds per byte."""
    if math.isnan(s_per_b):
        return "–"
    if s_per_b <= 0:
        return "∞"
    return f"{1e-9 / s_per_b:.3g}"


def pct(r):
    return "–" if math.isnan(r) else f"{100 * r:+.1f}%"


def size(b, digits=4):
    return "–" if math.isnan(b) else size_label(b, digits=digits)


def sizes(cell):
    """A ';'-separated list of sizes (fit.csv knees_B)."""
    v = [float(x) for x in cell.split(";") if x]
    return ", ".join(size(x) for x in v) if v else "none"


def group(r):
    """A crossovers.csv group as the fit names it: transport/collective/datatype/[op/]placement/p=N."""
    op = f"{r['op']}/" if r["op"] else ""
    return f"{r['transport']}/{r['collective']}/{r['datatype']}/{op}{r['placement']}/p={r['ranks']}"


def configuration(r):
    """A fit.csv configuration: transport/collective/algorithm/datatype/[op/]placement/p=N."""
    op = f"{r['op']}/" if r["op"] else ""
    return (f"{r['transport']}/{r['collective']}/{r['algorithm']}/{r['datatype']}/{op}"
            f"{r['placement']}/p={r['ranks']}")


def sign_prose(what, signed_median):
    """One sentence about the sign of a median signed relative error."""
    if math.isnan(signed_median):
        return f"{what}: no rows."
    if signed_median > 0:
        return f"{what}: the model over-predicts (median {100 * signed_median:+.0f}%)."
    if signed_median < 0:
        return f"{what}: the model under-predicts (median {100 * signed_median:+.0f}%)."
    return f"{what}: no bias (median 0%)."


class Fit:
    """The fit's files in FIT_DIR, read and checked once."""

    def __init__(self, d):
        self.summary = read_csv(os.path.join(d, "summary.csv"),
                                ["kind", "transport", "number", "text"])
        # A fit may have no crossovers or grades (one algorithm, no schedule rows).
        self.fit = read_csv(os.path.join(d, "fit.csv"),
                            ["scope", "transport", "collective", "algorithm", "datatype", "op",
                             "placement", "ranks", "alpha_s", "alpha_s_lo", "alpha_s_hi",
                             "beta_s_per_B", "beta_s_per_B_lo", "beta_s_per_B_hi",
                             "gamma_s_per_B", "gamma_s_per_B_lo", "gamma_s_per_B_hi",
                             "r_squared", "points", "knees_B"], empty_ok=True)
        self.errors = read_csv(os.path.join(d, "errors.csv"),
                               ["params", "transport", "collective", "algorithm", "rows_large",
                                "median_abs_err_large", "median_signed_err_mid",
                                "median_signed_err_top", "rows_all", "median_abs_err_all",
                                "worst_err", "worst_err_bytes", "worst_err_ranks", "large_from_B",
                                "mid_to_B", "top_from_B"], empty_ok=True)
        # The size bands fit split the errors at (every row of errors.csv holds the edges).
        self.bands = band_labels(self.errors[0]["_path"], self.errors[0]) if self.errors else \
            dict.fromkeys(("large", "mid", "top"), "–")
        self.crossovers = read_csv(os.path.join(d, "crossovers.csv"),
                                   ["kind", "params", "transport", "collective", "datatype", "op",
                                    "placement", "ranks", "algo_a", "algo_b",
                                    "predicted_crossover_B", "measured_crossover_B",
                                    "predicted_crossings", "measured_crossings",
                                    "predicted_faster_below", "measured_faster_below", "bytes",
                                    "predicted_best", "measured_best", "regret", "sizes",
                                    "picks_right", "median_regret"], empty_ok=True)
        self.accuracy = read_csv(os.path.join(d, "accuracy.csv"),
                                 ["params", "transport", "scope", "median_abs_err_large",
                                  "median_abs_err_small", "worst_collective",
                                  "worst_collective_median_abs_err", "picks_right", "picks",
                                  "median_regret", "large_from_B"] +
                                 [f"{k}_{f}" for f in ("median_abs_err_large",
                                                       "median_abs_err_small", "worst_collective",
                                                       "picks", "median_regret")
                                  for k in ("target", "met")], empty_ok=True)

    def facts(self, kind):
        return [r for r in self.summary if r["kind"] == kind]

    def scope(self, scope):
        return [r for r in self.fit if r["scope"] == scope]

    def kind(self, kind):
        return [r for r in self.crossovers if r["kind"] == kind]


def header(f):
    src = f.facts("source")[0]
    out = ["# collbench model report\n\n",
           f"Source: `{src['text']}` ({src['number']} rows, {f.facts('configs')[0]['number']} "
           "configurations)."]
    for c in f.facts("calibration"):
        out.append(f" Calibration of {md(c['transport'])}: `{md(c['text'])}`.")
    out.append("\n\n")
    return out


def mark(v, target, met):
    """A fraction with accuracy.csv's verdict (its met_* cell), or by how much it misses."""
    if math.isnan(v):
        return "–"
    if met == "1":
        return f"{100 * v:.1f}% ✓"
    return f"{100 * v:.1f}% ✗ ({100 * (v - target):+.1f} points)"


def targets(f):
    """The targets of scope all and how each parameter set meets them."""
    rows = [r for r in f.accuracy if r["scope"] == "all"]
    if not rows:
        return []
    t = rows[0]
    large = band_labels(t["_path"], t)["large"]

    def pct_of(column):
        return f"{100 * float(t[column]):g}%"

    out = ["## Accuracy and choices against the targets (ablation)\n\n",
           "Targets (out of sample, per transport): median |err| ≤ "
           f"{pct_of('target_median_abs_err_large')} at ≥ {large} and ≤ "
           f"{pct_of('target_median_abs_err_small')} below; the worst collective's median |err| "
           f"≥ {large} ≤ {pct_of('target_worst_collective')}; the model's pick within the "
           f"measured best's confidence interval in ≥ {pct_of('target_picks')} of sizes; median "
           f"regret ≤ {pct_of('target_median_regret')}. `calibration` is the α-β-γ baseline "
           "from the microbenchmarks; each `+` row adds terms (cumulative), every one calibrated "
           "by its own microbenchmark:\n\n"]
    out += [f"- {term['text']}\n" for term in f.facts("term")]
    out.append("\n`global` is the in-sample fit, for comparison. A missed target is marked ✗ "
               "with the amount by which it is missed.\n\n")
    out.append(f"| params | transport | median \\|err\\| ≥ {large} | median \\|err\\| < {large} | "
               f"worst collective ≥ {large} | picks within CI | median regret |\n"
               "|---|---|---|---|---|---|---|\n")

    def cell(g, figure, v):
        return mark(v, value(g[f"target_{figure}"]), g[f"met_{figure}"])

    for g in rows:
        picks = int(g["picks"])
        share = int(g["picks_right"]) / picks if picks else math.nan
        out.append(f"| {md(g['params'])} | {md(g['transport'])} | "
                   f"{cell(g, 'median_abs_err_large', value(g['median_abs_err_large']))} | "
                   f"{cell(g, 'median_abs_err_small', value(g['median_abs_err_small']))} | "
                   f"{md(g['worst_collective'])} "
                   f"{cell(g, 'worst_collective', value(g['worst_collective_median_abs_err']))} | "
                   f"{g['picks_right']}/{picks} = {cell(g, 'picks', share)} | "
                   f"{cell(g, 'median_regret', value(g['median_regret']))} |\n")
    out.append("\nThe sign of the error, per size range (median signed rel_err):\n\n")
    bands = {(r["params"], r["transport"]): r for r in f.errors
             if not r["collective"] and not r["algorithm"]}
    for g in rows:
        e = bands.get((g["params"], g["transport"]))
        mid = value(e["median_signed_err_mid"]) if e else math.nan
        top = value(e["median_signed_err_top"]) if e else math.nan
        out.append(f"- {md(g['params'])}, {md(g['transport'])}: "
                   f"{sign_prose(f.bands['mid'], mid)} {sign_prose(f.bands['top'], top)}\n")
    out.append("\n")
    return out


def parameters(f):
    out = ["## Fitted parameters\n\n",
           "T = α·rounds + β·bytes + γ·reduced bytes, with rounds, bytes and reduced bytes from "
           "each algorithm's closed-form cost (the exact variant implemented). Bandwidths are "
           "1/β and 1/γ. Intervals are 95% percentile-bootstrap intervals over rows.\n\n",
           "| source | α (µs) | bandwidth 1/β (GB/s) | reduce bandwidth 1/γ (GB/s) | R² | rows |\n",
           "|---|---|---|---|---|---|\n"]
    fits = {r["transport"]: r for r in f.scope("global")}

    def cell(r, column, show, swap=False):
        if r[column] == "":
            return "not identified"
        lo, hi = value(r[f"{column}_lo"]), value(r[f"{column}_hi"])
        if swap:  # the high β bound is the low bandwidth
            lo, hi = hi, lo
        return f"{show(value(r[column]))} [{show(lo)}, {show(hi)}]"

    for t in f.facts("transport"):
        name = t["transport"]
        if t["number"] == "":
            out.append(f"| global fit, {name} | no fit (no usable schedule rows) | | | | 0 |\n")
            continue
        g = fits[name]
        out.append(f"| global fit, {name} | {cell(g, 'alpha_s', us)} | "
                   f"{cell(g, 'beta_s_per_B', gbps, True)} | "
                   f"{cell(g, 'gamma_s_per_B', gbps, True)} | {value(g['r_squared']):.4f} | "
                   f"{g['points']} |\n")
    calibrations = f.facts("calibration")
    for c, p in zip(calibrations, f.scope("calibration")):
        out.append(f"| calibration ({md(c['text'])}), {md(c['transport'])} | "
                   f"{us(value(p['alpha_s']))} | {gbps(value(p['beta_s_per_B']))} | "
                   f"{gbps(value(p['gamma_s_per_B']))} | | |\n")
    out.append("\n")
    excluded = f.facts("excluded")
    if excluded:
        out.append("Rows not used by the global fit (they still get per-configuration lines):\n\n")
    out += [f"- {md(r['transport'])}: {r['number']} row(s): {r['text']}\n" for r in excluded]
    out += [f"- {md(r['transport'])}: not predicted out of sample (no calibration of this "
            "transport)\n" for r in f.facts("uncalibrated")]
    over = f.facts("oversubscribed")
    out += [f"- {r['number']} row(s) were measured with more ranks than cores (oversubscribed = "
            "1): their times say as much about the OS scheduler as about the transport "
            "(models/fit_rows.hpp)\n" for r in over]
    out += [f"- {md(r['transport'])}: {r['text']}\n" for r in f.facts("note")]
    if excluded or calibrations or over:
        out.append("\n")
    return out


def errors(f):
    out = ["## Model error per algorithm\n\n",
           "rel_err = (predicted − measured) / measured over every measured row (all rank counts, "
           "datatypes, ops, placements); `global` = the transport's joint fit (in-sample), "
           "`calibration` = the calibration file alone (out-of-sample), `config` = each "
           "configuration's own line. Worst = largest |rel_err|.\n\n",
           "| params | transport | collective | algorithm | rows | median \\|err\\| | worst err "
           f"(at) | rows ≥ {f.bands['large']} | median \\|err\\| ≥ {f.bands['large']} |\n",
           "|---|---|---|---|---|---|---|---|---|\n"]
    order = {r["text"]: i for i, r in enumerate(f.facts("collective"))}
    rows = [r for r in f.errors if r["algorithm"]]
    rows.sort(key=lambda r: (r["params"], r["transport"], order.get(r["collective"], len(order)),
                             r["algorithm"]))
    for r in rows:
        large = value(r["median_abs_err_large"])
        out.append(f"| {md(r['params'])} | {md(r['transport'])} | {r['collective']} | "
                   f"{md(r['algorithm'])} | {r['rows_all']} | "
                   f"{100 * value(r['median_abs_err_all']):.1f}% | {pct(value(r['worst_err']))} "
                   f"({size(value(r['worst_err_bytes']))}, p={r['worst_err_ranks']}) | "
                   f"{r['rows_large']} | {'–' if math.isnan(large) else f'{100 * large:.1f}%'} |\n")
    out.append("\n")
    return out


def crossovers(f):
    out = ["## Crossovers: predicted vs measured\n\n"]
    pairs = f.kind("pair")
    if not pairs:
        return out + ["No group has two schedule algorithms measured at the same sizes.\n\n"]
    out += ["First size where the faster of the pair changes, within the measured range, to 3 "
            "significant digits. A measured crossover counts only where the two algorithms' 95% "
            "confidence intervals separate on both sides of it (located between sweep points in "
            "log-size); algorithms whose schedules exchange the same messages at that p form one "
            "group (a=b) and are not paired. `faster below` = the winner below the first "
            "crossover (at the smallest size where there is none; `tie`: the intervals overlap "
            "there). Pairs with no crossing on either side are counted, not listed.\n\n",
            "| params | group | pair | predicted | measured | faster below (pred / meas) | "
            "crossings (pred / meas) |\n|---|---|---|---|---|---|---|\n"]
    quiet = 0
    for r in pairs:
        pred, meas = r["predicted_crossover_B"], r["measured_crossover_B"]
        if not pred and not meas:
            quiet += 1
            continue
        out.append(f"| {md(r['params'])} | {md(group(r))} | {md(r['algo_a'])} vs "
                   f"{md(r['algo_b'])} | {size(float(pred), 3) if pred else 'none'} | "
                   f"{size(float(meas), 3) if meas else 'none'} | "
                   f"{md(r['predicted_faster_below'])} / {md(r['measured_faster_below'])} | "
                   f"{r['predicted_crossings']} / {r['measured_crossings']} |\n")
    out.append(f"\n{quiet} pair(s) cross neither in the model nor in the measurements.\n\n")
    return out


def best(f):
    out = ["## Best algorithm per size: predicted vs measured\n\n"]
    rows = f.kind("best")
    if not rows:
        return out + ["No size has two schedule algorithms measured.\n\n"]
    out += ["Regret = measured time of the model's choice / measured best − 1 (0 = the model "
            "chose right). Algorithms the model predicts equal (e.g. several at p = 2) are its "
            "choice together (a\\|b), and the best measured of them counts. The measured best is "
            "every algorithm whose 95% confidence interval reaches the fastest's; the model is "
            "right when the two sets share an algorithm.\n\n",
            "| params | group | sizes | model right | median regret | worst regret (at) |\n",
            "|---|---|---|---|---|---|\n"]
    for g in f.kind("best_group"):
        out.append(f"| {md(g['params'])} | {md(group(g))} | {g['sizes']} | {g['picks_right']} | "
                   f"{100 * value(g['median_regret']):.1f}% | {100 * value(g['regret']):.1f}% "
                   f"({size(value(g['bytes']))}: {md(g['predicted_best'])} chosen, "
                   f"{md(g['measured_best'])} best) |\n")
    out += ["\nPer size (see crossovers.csv, kind = best, for every row):\n\n",
            "| params | group | size | predicted best | measured best | regret |\n",
            "|---|---|---|---|---|---|\n"]
    for b in rows:
        out.append(f"| {md(b['params'])} | {md(group(b))} | {size(value(b['bytes']))} | "
                   f"{md(b['predicted_best'])} | {md(b['measured_best'])} | "
                   f"{100 * value(b['regret']):.1f}% |\n")
    out.append("\n")
    return out


def lines(f):
    out = ["## Per-configuration lines T(n) = a + b·n\n\n",
           "a = effective latency, 1/b = effective bandwidth (n = the size column of the "
           "results, nccl-tests' S). R² is on the relative scale. Knees: sizes where a piecewise "
           "fit starts a new segment (protocol or cache changes).\n\n",
           "| configuration | points | latency a (µs) [95% CI] | bandwidth 1/b (GB/s) [95% CI] | "
           "R² | knees |\n|---|---|---|---|---|---|\n"]
    for c in f.scope("config"):
        v = {k: value(c[k]) for k in ("alpha_s", "alpha_s_lo", "alpha_s_hi", "beta_s_per_B",
                                      "beta_s_per_B_lo", "beta_s_per_B_hi", "r_squared")}
        out.append(f"| {md(configuration(c))} | {c['points']} | {us(v['alpha_s'])} "
                   f"[{us(v['alpha_s_lo'])}, {us(v['alpha_s_hi'])}] | {gbps(v['beta_s_per_B'])} "
                   f"[{gbps(v['beta_s_per_B_hi'])}, {gbps(v['beta_s_per_B_lo'])}] | "
                   f"{v['r_squared']:.4f} | {sizes(c['knees_B'])} |\n")
    out.append("\n")
    return out


def build(d):
    """model-report.md's text; InputError for a missing or malformed input."""
    f = Fit(d)
    parts = header(f) + targets(f) + parameters(f) + errors(f) + crossovers(f) + best(f) + \
        lines(f)
    return "".join(parts)


def main(argv):
    parser = argparse.ArgumentParser(
        prog="model_report.py", description=__doc__.split("\n\n")[0],
        epilog="Writes FIT_DIR/model-report.md. Exit status 2 on a missing or malformed input, "
               "4 when the write fails.")
    parser.add_argument("fit_dir", metavar="FIT_DIR", help="the --out directory of collbench fit")
    args = parser.parse_args(argv)
    target = os.path.join(args.fit_dir, REPORT)
    if not os.path.isdir(args.fit_dir):
        raise InputError(f"{args.fit_dir}: not a directory (accepted: the --out directory "
                         "of collbench fit)")
    prepare_directory(args.fit_dir, f"{REPORT} into")
    text = build(args.fit_dir)
    write_atomically(target, lambda out: out.write(text), binary=False)
    return 0


if __name__ == "__main__":
    import script_main
    sys.exit(script_main.run("model_report.py", main, sys.argv[1:]))
