#!/usr/bin/python3
"""Two-level testbed report: the hierarchical and flat schedules priced by
level against the sweep (scripts/testbed/two_level.sh writes the inputs).

  /usr/bin/python3 scripts/testbed/report_two_level.py DIR     writes DIR/report.md

DIR holds setting.txt (the configured link), calibration.csv (the two-level
calibration: the network's alpha and beta, and the node's in intra_*), and per
collective C the sweep C.csv and fit-C/ (`collbench fit C.csv --calibration
calibration.csv --network setting.txt --stack-overhead probe.csv`). Every figure,
target and verdict is the fit's own, from fit-C/accuracy.csv (label
`calibration`, scopes `hierarchical` and `flat`; params `simulator`, scopes
`sim-hierarchical` and `sim-flat`, from `fit --simulate`); nothing here
computes or judges one. The extrapolation's times, each family's fastest and
their ratio are `collbench map`'s (extrapolation-C.csv). The calibration's
parameters are shown beside the configured link, with the network level's
verdict from fit-allreduce/calibrated-link.csv.
"""
import csv
import os
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from output_file import EXIT_BAD_INPUT, write_atomically  # noqa: E402
import results_csv  # noqa: E402

COLLECTIVES = ["allreduce", "reduce_scatter", "allgather", "alltoall"]


def one_row(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != 1:
        raise results_csv.InputError(f"{path}: {len(rows)} data rows (accepted: exactly one)")
    return rows[0]


def setting(d):
    out = {}
    with open(os.path.join(d, "setting.txt")) as f:
        for line in f:
            key, _, value = line.strip().partition("=")
            out[key] = value
    return out


def percent(cell):
    return "" if cell == "" else f"{100 * float(cell):.1f}%"


def verdict(met):
    return {"1": "met", "0": "missed"}.get(met, "")


def accuracy_rows(d, coll, params="calibration"):
    with open(os.path.join(d, f"fit-{coll}", "accuracy.csv"), newline="") as f:
        return {r["scope"]: r for r in csv.DictReader(f) if r["params"] == params}


def level_lines(d):
    s = setting(d)
    c = one_row(os.path.join(d, "calibration.csv"))
    latency_us = float(s["latency_us"])
    rate_MBps = float(s["bandwidth_bps"]) / 8 / 1e6
    # The network level's verdict, as `collbench fit --network` judged it
    # (fit-allreduce/calibrated-link.csv: the same calibration in every fit).
    graded = one_row(os.path.join(d, "fit-allreduce", "calibrated-link.csv"))
    out = ["## α, β per level (calibration.csv)\n",
           f"Configured link: {latency_us:g} µs one way, {rate_MBps:g} MB/s. The network level "
           f"against it (`fit-allreduce/calibrated-link.csv`): α "
           f"{100 * float(graded['alpha_error']):+.1f}% of the latency plus the stack's overhead "
           f"(target ±{percent(graded['target_alpha_error'])}: {verdict(graded['met_alpha'])}), "
           f"1/β {100 * float(graded['rate_error']):+.1f}% of the rate "
           f"(target ±{percent(graded['target_rate_error'])}: {verdict(graded['met_rate'])}). "
           "The node level has no configured link to be held to.\n",
           "| level | α (µs) | 1/β (MB/s) | pairs at once |", "|---|---|---|---|",
           f"| network | {1e6 * float(c['alpha_s']):.0f} | "
           f"{1e-6 / float(c['beta_s_per_B']):.1f} | 1 |"]
    if c.get("intra_beta_s_per_B"):
        out.append(f"| node | {1e6 * float(c['intra_alpha_s']):.0f} | "
                   f"{1e-6 / float(c['intra_beta_s_per_B']):.1f} | {c.get('intra_pairs') or 1} |")
    if c.get("intra_alone_beta_s_per_B"):
        out.append(f"| node, ranks 0 and 1 alone | {1e6 * float(c['intra_alone_alpha_s']):.0f} | "
                   f"{1e-6 / float(c['intra_alone_beta_s_per_B']):.1f} | 1 |")
    return out + [""]


def accuracy_lines(d):
    out = ["## The sweeps priced by level (fit-C/accuracy.csv, label calibration)\n",
           "| collective | hierarchical: rows, median \\|err\\| at ≥ large size, target | "
           "flat: rows, median \\|err\\| | picks right |", "|---|---|---|---|"]
    for coll in COLLECTIVES:
        a = accuracy_rows(d, coll)
        h, f, every = a["hierarchical"], a["flat"], a["all"]
        target = percent(h["target_median_abs_err_large"])
        out.append(f"| {coll} | {h['rows_large']}, {percent(h['median_abs_err_large'])}, "
                   f"≤ {target}: {verdict(h['met_median_abs_err_large'])} | "
                   f"{f['rows_large']}, {percent(f['median_abs_err_large'])} | "
                   f"{every['picks_right']} of {every['picks']} "
                   f"({verdict(every['met_picks'])}) |")
    return out + [""]


def signed(cell):
    return "" if cell == "" else f"{100 * float(cell):+.1f}%"


def simulator_lines(d):
    """fit-C/accuracy.csv's rows of params simulator (`collbench fit --simulate`:
    fit-C/simulated.csv holds each row), beside the model's own medians."""
    out = ["## The simulator on the same calibration (fit-C/accuracy.csv, params simulator)\n",
           "Every measured schedule row simulated at its layout with the calibration's two levels "
           "(`collbench fit --simulate`; each row in fit-C/simulated.csv), median "
           "\\|simulated / measured − 1\\| and signed at ≥ the large size, against the target; "
           "the model's median (label calibration) beside it.\n",
           "| collective | simulator, hierarchical: rows, median \\|err\\|, signed, target | "
           "model | simulator, flat: rows, median \\|err\\|, signed, target | model |",
           "|---|---|---|---|---|"]
    for coll in COLLECTIVES:
        sim, model = accuracy_rows(d, coll, "simulator"), accuracy_rows(d, coll)
        cells = []
        for scope, family in (("sim-hierarchical", "hierarchical"), ("sim-flat", "flat")):
            r = sim.get(scope)
            if r is None:
                cells += ["(not simulated)", percent(model[family]["median_abs_err_large"])]
                continue
            cells += [f"{r['rows_large']}, {percent(r['median_abs_err_large'])}, "
                      f"{signed(r['median_signed_err_large'])}, "
                      f"≤ {percent(r['target_median_abs_err_large'])}: "
                      f"{verdict(r['met_median_abs_err_large'])}",
                      percent(model[family]["median_abs_err_large"])]
        out.append(f"| {coll} | " + " | ".join(cells) + " |")
    return out + [""]


def extrapolation_lines(d):
    """extrapolation-C.csv (`collbench map` at 1024 nodes x 8 ranks with the
    calibration, two_level.sh): per size each family's fastest timed row, as
    map simulated it, beside the simulator's grade at the measured layout."""
    s = setting(d)
    layout = f"{s['hosts']} × {s['ranks_per_host']}"
    out = ["## Extrapolated to 1024 nodes × 8 ranks (simulator)\n",
           "Every algorithm of the sweep that the simulator prices at 8192 ranks "
           "(extrapolation-C.csv: `collbench map --ranks 8192 --ranks-per-node 8 --params "
           "calibration.csv`; docs/two-level.md names those left out), the fastest hierarchical and "
           "the fastest flat one per size. **Predicted, not measured**; beside them the simulator's "
           f"validated error at the measured layout ({layout}: fit-C/accuracy.csv, params "
           "simulator, median \\|sim / measured − 1\\| ≥ the large size, per family).\n",
           "| collective | size | fastest hierarchical (predicted) | fastest flat (predicted) | "
           f"hierarchical / flat | simulator's error at {layout}: hierarchical, flat |",
           "|---|---|---|---|---|---|"]
    for coll in COLLECTIVES:
        sim = accuracy_rows(d, coll, "simulator")
        grades = ", ".join(percent(sim[scope]["median_abs_err_large"]) if scope in sim else "–"
                           for scope in ("sim-hierarchical", "sim-flat"))
        # Each row of a cell repeats its families' fastest (map's CSV).
        cells = {}
        for r in csv_rows(os.path.join(d, f"extrapolation-{coll}.csv")):
            cells.setdefault(int(r["bytes"]), r)
        for size, r in sorted(cells.items()):
            shown = [f"`{r[f'best_{f}']}` {1e3 * float(r[f'best_{f}_time_s']):.4g} ms"
                     if r[f"best_{f}"] else "–" for f in ("hierarchical", "flat")]
            ratio = (f"{float(r['hierarchical_over_flat']):.2f}" if r["hierarchical_over_flat"]
                     else "–")
            out.append(f"| {coll} | {results_csv.size_label(size)} | {shown[0]} | {shown[1]} | "
                       f"{ratio} | {grades} |")
    return out + [""]


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def size_text(cell):
    return results_csv.size_label(float(cell)) if cell else "–"


def crossover_lines(d):
    out = ["## Hierarchical against flat (fit-C/crossovers.csv, kind family, label calibration)\n",
           "Each family's fastest algorithm at each size; a measured crossover needs the two "
           "families' CIs separated on both sides (the rule of every crossover here), and is held "
           "to the hierarchical scope's factor (`accuracy.csv`'s `met_crossovers`).\n",
           "| collective | faster below (measured / predicted) | measured crossover (between) | "
           "predicted | verdict | target met |", "|---|---|---|---|---|---|"]
    for coll in COLLECTIVES:
        hier = accuracy_rows(d, coll)["hierarchical"]
        for r in csv_rows(os.path.join(d, f"fit-{coll}", "crossovers.csv")):
            if r["kind"] != "family" or r["params"] != "calibration":
                continue
            between = (f" ({size_text(r['measured_crossover_lo_B'])}–"
                       f"{size_text(r['measured_crossover_hi_B'])})"
                       if r["measured_crossover_lo_B"] else "")
            out.append(f"| {coll} | {r['measured_faster_below']} / {r['predicted_faster_below']} | "
                       f"{size_text(r['measured_crossover_B'])}{between} | "
                       f"{size_text(r['predicted_crossover_B'])} | {r['verdict'] or '–'} | "
                       f"{verdict(hier['met_crossovers']) or '–'} |")
    return out + [""]


def ratio_text(r, column):
    if not r[column]:
        return "–"
    return f"{float(r[column]):.2f} [{float(r[column + '_lo']):.2f}, {float(r[column + '_hi']):.2f}]"


def library_lines(d):
    out = ["## Against the library (fit-C/families.csv)\n",
           "The fastest hierarchical schedule's median over the library's fastest (its default and "
           "every algorithm forced by CVARs that was measured), with the spread of the two 95% CIs' "
           "far ends; below 1 the schedule is faster.\n",
           "| collective | size | hierarchical | library | hierarchical / library | "
           "flat / library | faster |", "|---|---|---|---|---|---|---|"]
    for coll in COLLECTIVES:
        path = os.path.join(d, f"fit-{coll}", "families.csv")
        if not os.path.exists(path):
            continue
        for r in csv_rows(path):
            lib = r["library_algorithm"]
            out.append(f"| {coll} | {size_text(r['bytes'])} | {r['hier_algorithm'] or '–'} | "
                       f"{lib or '–'} | {ratio_text(r, 'hier_over_library')} | "
                       f"{ratio_text(r, 'flat_over_library')} | {r['faster']} |")
    return out + [""]


def build(d):
    s = setting(d)
    out = [f"# Two-level testbed: {s['hosts']} hosts × {s['ranks_per_host']} ranks\n",
           "A run's recorded commands replayed here (replay.sh); docs/two-level.md describes the "
           "setting and the reference figures.\n"]
    return (out + level_lines(d) + accuracy_lines(d) + simulator_lines(d)
            + extrapolation_lines(d) + crossover_lines(d) + library_lines(d))


def main(argv):
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print("usage: report_two_level.py DIR (the folder scripts/testbed/two_level.sh writes)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    d = argv[0]
    try:
        text = "\n".join(build(d)) + "\n"
    except (KeyError, ValueError) as e:
        raise results_csv.InputError(f"{d}: malformed two-level folder ({type(e).__name__}: "
                                     f"{results_csv.shown(e)})")
    except OSError as e:
        raise results_csv.InputError(f"cannot read {e.filename or d}: {e.strerror}")
    path = os.path.join(d, "report.md")
    write_atomically(path, lambda f: f.write(text), binary=False)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    import script_main
    sys.exit(script_main.run("report_two_level.py", main, sys.argv[1:]))
