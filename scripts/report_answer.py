"""The first sections of every report.md (host study and testbed): the answer
before the evidence. Which algorithm to use where (recommendations.csv), the
measured winners maps (plots/winners-*.png from winners.csv), how well α-β
predicts it (fit/fit.csv, fit/accuracy.csv, fit/crossovers.csv) and the best
schedule against the library's own (recommendations.csv).

Every figure is read from a CSV that C++ wrote (collbench recommend, collbench
fit); nothing here decides a winner, a tie, a threshold or a grade. A section
whose file is absent says so plainly. Standard library only.
"""
import os

from results_csv import num, rate_text, read_csv, seconds_text, size_label

RECOMMENDATION_COLUMNS = ["transport", "collective", "datatype", "ranks", "from_bytes",
                          "to_bytes", "algorithm", "tied_with", "source", "margin",
                          "speedup_vs_library"]
LIBRARIES = ("mpi", "nccl")
# How many measured crossovers the summary names before pointing to the appendix.
CROSSOVERS_NAMED = 6


def md(text):
    """A markdown table cell: characters that would split or format it get a backslash."""
    return "".join("\\" + c if c in "\\|*`<>[]" else c for c in str(text))


def size_range(r, path):
    lo, hi = num(path, r, "from_bytes"), num(path, r, "to_bytes")
    return size_label(lo) if lo == hi else f"{size_label(lo)} – {size_label(hi)}"


def tied(r):
    return [t for t in r["tied_with"].split("|") if t]


def load_recommendations(directory):
    """recommendations.csv's rows in file order, or None when the file is absent."""
    path = os.path.join(directory, "recommendations.csv")
    if not os.path.isfile(path):
        return None, path
    return read_csv(path, RECOMMENDATION_COLUMNS), path


def section_recommendation(directory, how_to):
    """## Which algorithm to use: one table row per size range of recommendations.csv."""
    rows, path = load_recommendations(directory)
    out = ["## Which algorithm to use", ""]
    if rows is None:
        return out + [f"**No recommendation here:** `recommendations.csv` is absent from this "
                      f"directory. {how_to}", ""]
    settings = any(r.get("setting") for r in rows)
    out += ["From `recommendations.csv` (`collbench recommend`): per transport, collective, "
            "datatype and rank count, the fastest algorithm over each range of message sizes "
            "(per rank). A range changes hands only where the confidence intervals separate "
            "by more than the minimum effect `recommend` printed; *tied with* names the "
            "algorithms it cannot tell apart from the winner. *margin*: the winner's lead over "
            "the best algorithm not tied with it. *predicted*: from the calibrated model, at a "
            "rank count or size not measured.", "",
            ("| setting " if settings else "") +
            "| transport | collective | datatype | p | sizes | use | tied with | source | margin |",
            ("|---" if settings else "") + "|---|---|---|---|---|---|---|---|---|"]
    models = []
    for r in rows:
        margin = f"{num(path, r, 'margin'):.0%}" if r["margin"] else "–"
        out.append((f"| {md(r.get('setting') or '–')} " if settings else "") +
                   f"| {md(r['transport'])} | {md(kind(r))} | {md(r['datatype'])} | "
                   f"{md(r['ranks'])} | {size_range(r, path)} | **{md(r['algorithm'])}** | "
                   f"{md(', '.join(tied(r))) or '–'} | {md(r['source'])} | {margin} |")
        if r["source"] == "predicted" and r.get("model") and r["model"] not in models:
            models.append(r["model"])
    out.append("")
    if models:
        out += ["Predicted rows come from: " + "; ".join(md(m) for m in models) + ".", ""]
    return out


def kind(r):
    """The collective, with its op and placement where they are not sum / out."""
    extra = [v for v in (r.get("op"), r.get("placement")) if v and v not in ("sum", "out")]
    return r["collective"] + (f" ({', '.join(extra)})" if extra else "")


def section_winners(directory, plots_dir, plot_hint):
    """## Measured winners: the winners maps plot.py drew from winners.csv, and the
    simulated maps of collbench map."""
    out = ["## Winners per rank count and size", ""]
    have_csv = os.path.isfile(os.path.join(directory, "winners.csv"))
    pngs = sorted(p for p in os.listdir(plots_dir) if p.endswith(".png")) \
        if os.path.isdir(plots_dir) else []
    rel = os.path.relpath(plots_dir, directory)
    winners = [p for p in pngs if p.startswith("winners-")]
    maps = [p for p in pngs if p.startswith("crossover-")]
    if not have_csv:
        out.append("**No measured winners map:** `winners.csv` is absent from this directory "
                   "(`collbench recommend DIR --out DIR` writes it).")
    elif not winners:
        out.append(f"`winners.csv` is here but its maps are not drawn yet: {plot_hint}")
    else:
        out.append("Colour: the fastest algorithm per (rank count, size), from `winners.csv`; "
                   "hatched: a tie (the winner's CI overlaps another's); a circle: predicted by "
                   "the calibrated model, not measured. One panel per collective.")
    out.append("")
    out += [f"![{p[:-4]}]({rel}/{p})\n" for p in winners]
    if maps:
        out += ["Simulated with the fitted α, β, γ to thousands of ranks (`collbench map`, "
                "one map per collective simulated):", ""]
        out += [f"![{p[:-4]}]({rel}/{p})\n" for p in maps]
    return out


def fit_rows(directory):
    path = os.path.join(directory, "fit", "fit.csv")
    if not os.path.isfile(path):
        return {}, path
    rows = read_csv(path, ["scope", "transport", "alpha_s", "beta_s_per_B"])
    return {(r["scope"], r["transport"]): r for r in rows
            if r["scope"] in ("global", "calibration")}, path


def param_text(r, path, column, lo_col, hi_col):
    """α in µs or 1/β in GB/s, with the bootstrap CI fit.csv gives."""
    if not r.get(column):
        return "not identified"
    v = num(path, r, column)
    lo = num(path, r, lo_col) if r.get(lo_col) else None
    hi = num(path, r, hi_col) if r.get(hi_col) else None
    if column == "alpha_s":
        return seconds_text(v) + (f" [{seconds_text(lo)}, {seconds_text(hi)}]"
                                  if lo is not None and hi is not None else "")
    if v <= 0:
        return "∞ (too small to see)"
    return rate_text(1 / v) + (f" [{rate_text(1 / hi)}, {rate_text(1 / lo)}]" if lo and hi
                               else "")


def section_alpha_beta(directory, configured=None, level="calibration",
                       heading="## How well α-β predicts it"):
    """## How well α-β predicts it: a few lines per transport. `configured`, when the
    network's true parameters are known (the testbed): {transport: (alpha_s, bytes/s)}."""
    out = [heading, ""]
    fits, fpath = fit_rows(directory)
    acc_path = os.path.join(directory, "fit", "accuracy.csv")
    x_path = os.path.join(directory, "fit", "crossovers.csv")
    if not fits and not os.path.isfile(acc_path):
        return out + ["No fit here (`fit/fit.csv`, `fit/accuracy.csv` absent): `collbench fit "
                      "RESULTS.csv --calibration calibration.csv --out DIR/fit` writes them.", ""]
    accuracy = {}
    if os.path.isfile(acc_path):
        for r in read_csv(acc_path, ["params", "transport", "scope", "median_abs_err_large",
                                     "median_abs_err_small", "picks_right", "picks"]):
            if r["scope"] == "all":  # a testbed's link-limited rows are its appendix's
                accuracy[(r["params"], r["transport"])] = r
    crossings = {}
    if os.path.isfile(x_path):
        for r in read_csv(x_path, ["kind", "params", "transport", "collective", "ranks",
                                   "algo_a", "algo_b", "predicted_crossover_B",
                                   "measured_crossover_B"]):
            if r["kind"] == "pair" and r["params"] == level and r["measured_crossover_B"]:
                crossings.setdefault(r["transport"], []).append(r)
    transports = sorted({t for _, t in fits} | {t for _, t in accuracy} | set(crossings))
    for t in transports:
        out.append(f"**{md(t)}**, the α-β-γ model with parameters from the calibration's "
                   f"microbenchmarks alone (`{level}`, out of sample):")
        out.append("")
        cal, glob = fits.get(("calibration", t)), fits.get(("global", t))
        if configured and t in configured:
            alpha, rate = configured[t]
            out.append(f"- configured: α {seconds_text(alpha)} (latency and the stack's own "
                       f"overhead), 1/β {rate_text(rate)} (on the wire)")
        for label, r in (("calibrated (ping-pong)", cal), ("recovered from the sweep "
                                                           "(global fit, in sample)", glob)):
            if r:
                text = (f"- {label}: α {param_text(r, fpath, 'alpha_s', 'alpha_s_lo', 'alpha_s_hi')}"
                        f", 1/β {param_text(r, fpath, 'beta_s_per_B', 'beta_s_per_B_lo', 'beta_s_per_B_hi')}")
                out.append(text + (" (brackets: 95% CI)" if "[" in text else ""))
        a = accuracy.get((level, t))
        if a:
            def pct(column):
                return f"{num(acc_path, a, column):.0%}" if a[column] else "–"
            picks = int(num(acc_path, a, "picks"))
            right = int(num(acc_path, a, "picks_right"))
            out.append(f"- median |error| {pct('median_abs_err_large')} at large sizes, "
                       f"{pct('median_abs_err_small')} at small ones (`fit/accuracy.csv`); its "
                       f"pick of the fastest lies within the measured best's CI at {right} of "
                       f"{picks} (rank count, size) cells")
        elif os.path.isfile(acc_path):
            out.append(f"- `fit/accuracy.csv` has no `{level}` row for {md(t)}")
        xs = crossings.get(t, [])
        if os.path.isfile(x_path):
            named = "; ".join(
                f"{md(r['collective'])} p={md(r['ranks'])} {md(r['algo_a'])} / {md(r['algo_b'])}: "
                f"measured {size_label(num(x_path, r, 'measured_crossover_B'))}"
                + (f" (between {size_label(num(x_path, r, 'measured_crossover_lo_B'))} and "
                   f"{size_label(num(x_path, r, 'measured_crossover_hi_B'))})"
                   if r.get("measured_crossover_lo_B") and r.get("measured_crossover_hi_B")
                   else "")
                + ", predicted "
                + (size_label(num(x_path, r, 'predicted_crossover_B'))
                   if r["predicted_crossover_B"] else "none")
                for r in xs[:CROSSOVERS_NAMED])
            more = (f"; {len(xs) - CROSSOVERS_NAMED} more in the appendix"
                    if len(xs) > CROSSOVERS_NAMED else "")
            predicted = sum(1 for r in xs if r["predicted_crossover_B"])
            out.append(f"- measured crossovers (where the two CIs separate on both sides): "
                       f"{len(xs)}, of which the model predicts a crossing for {predicted}"
                       + (f": {named}{more}" if xs else ""))
        out.append("")
    if os.path.isfile(x_path):
        out += ["In brackets, the interval in which each measured crossover lies: the measured "
                "sizes on either side where the CIs separate (`fit/crossovers.csv`).", ""]
    return out


def section_library(directory):
    """## Best schedule vs the library: recommendations.csv's speedup_vs_library, a ratio
    only where the library is not tied with the winner."""
    rows, path = load_recommendations(directory)
    out = ["## Best schedule vs the library's own", ""]
    if rows is None:
        return out + ["`recommendations.csv` is absent: no comparison with the library here.",
                      ""]
    settings = any(r.get("setting") for r in rows)
    measured = [r for r in rows if r["speedup_vs_library"]]
    if not measured:
        return out + ["No range of `recommendations.csv` has the library baseline measured "
                      "beside it (run the sweep with `--algo ...,mpi`).", ""]
    out += ["Library time / winner time over each measured range (`speedup_vs_library`). "
            "Where the library itself is among the algorithms tied with the winner, its "
            "confidence intervals overlap the winner's: the ratio is not significant and is "
            "not given.", "",
            ("| setting " if settings else "") +
            "| transport | collective | datatype | p | sizes | winner | library / winner |",
            ("|---" if settings else "") + "|---|---|---|---|---|---|---|"]
    for r in measured:
        libs = [x for x in tied(r) if x in LIBRARIES]
        if r["algorithm"] in LIBRARIES:
            ratio = "the library itself wins"
        elif libs:
            ratio = f"not significant ({', '.join(libs)} tied with the winner)"
        else:
            ratio = f"**{num(path, r, 'speedup_vs_library'):.2f}×**"
        out.append((f"| {md(r.get('setting') or '–')} " if settings else "") +
                   f"| {md(r['transport'])} | {md(kind(r))} | {md(r['datatype'])} | "
                   f"{md(r['ranks'])} | {size_range(r, path)} | {md(r['algorithm'])} | "
                   f"{ratio} |")
    return out + [""]


def answer_first(directory, plots_dir, how_to, plot_hint, configured=None, level="calibration"):
    """The four sections every report opens with, in order."""
    return (section_recommendation(directory, how_to)
            + section_winners(directory, plots_dir, plot_hint)
            + section_alpha_beta(directory, configured, level)
            + section_library(directory))
