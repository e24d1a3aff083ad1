"""report.md's "IPC at the memory limit" section: the rows `collbench fit`
wrote to fit/memory-bound.csv (models/memory_rows.hpp: each shared-memory row's
schedule's memory-traffic bound, the measured fraction of it, the target and
whether it is met, all computed in C++). Nothing here computes a figure or
judges a target. Standard library only.
"""
import os

from report_answer import md
from results_csv import num, read_csv, size_label

COLUMNS = ["transport", "collective", "algorithm", "placement", "ranks", "bytes",
           "memory_read_B", "memory_written_B", "memory_GBps", "memory_bound_us",
           "time_median_us", "fraction_of_bound", "out_of_cache", "target_fraction", "met_target"]


def memory_rate_moved(directory):
    """A paragraph when checks.csv (models/study_checks.hpp) flags the IPC calibration's memory
    rate as moved between the calibrations before and after the sweeps; else []."""
    path = os.path.join(directory, "checks.csv")
    if not os.path.isfile(path):
        return []
    for r in read_csv(path, ["kind", "transport", "quantity", "before", "after", "flag"],
                      empty_ok=True):
        if (r["kind"], r["transport"], r["quantity"], r["flag"]) == (
                "calibration", "ipc-host", "memory_GBps", "1"):
            return [f"**The memory rate moved** within the study: the IPC calibration copied "
                    f"at {num(path, r, 'before'):.3g} GB/s before the sweeps and "
                    f"{num(path, r, 'after'):.3g} after (checks.csv). The fractions are judged "
                    "at the first and the sweep ran between the two, so they say as much about "
                    "the machine as about the executor.", ""]
    return []


def section_memory(directory):
    """## IPC at the memory limit; [] when fit wrote no memory-bound.csv."""
    path = os.path.join(directory, "fit", "memory-bound.csv")
    if not os.path.isfile(path):
        return []
    rows = [r for r in read_csv(path, COLUMNS) if r["out_of_cache"] == "1"]
    out = ["## IPC at the memory limit", "",
           "Each schedule's memory-traffic bound over host shared memory: the bytes read and "
           "written along the schedule's critical path (a rank's steps one after another, a "
           "receive after its sender's previous step; copies and reductions, the IPC "
           "transport's fusions applied; models/memory_bound.hpp) at the memory bandwidth the "
           "IPC calibration measured (`memory_GBps`: copies with a 256 MiB footprint per rank; "
           "a calibration without it, its 64 MiB copy). The fraction is the bound over the "
           "measured median time (1 = at the memory limit; above 1 part of the data stayed "
           "in the cache).", ""]
    if not rows:
        return out + ["No row out of cache in fit/memory-bound.csv (the sweep stops below "
                      "the size the bound is judged from).", ""]
    bw = num(path, rows[0], "memory_GBps")
    out += [f"Memory bandwidth: {bw:.3g} GB/s read + written per rank.", ""]
    out += memory_rate_moved(directory)
    out += ["| collective | algorithm | placement | ranks | size | read + written (MiB) | "
            "bound (µs) | measured (µs) | fraction | target |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        traffic = (num(path, r, "memory_read_B") + num(path, r, "memory_written_B")) / 2**20
        verdict = {"1": "met", "0": "missed"}.get(r["met_target"], "–")
        out.append(f"| {md(r['collective'])} | {md(r['algorithm'])} | {md(r['placement'])} | "
                   f"{r['ranks']} | {size_label(num(path, r, 'bytes'))} | {traffic:.4g} | "
                   f"{num(path, r, 'memory_bound_us'):.4g} | {num(path, r, 'time_median_us'):.4g} | "
                   f"{num(path, r, 'fraction_of_bound'):.2f} | ≥ {r['target_fraction']} {verdict} |")
    out.append("")
    return out
