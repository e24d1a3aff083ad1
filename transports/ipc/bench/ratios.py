#!/usr/bin/python3
"""Ratios for the IPC transport's speed goals, from one compare.sh run.

Reads ipc.csv (--transport ipc --mem host), mpi.csv (--transport mpi, with
the `mpi` baseline) and memcpy.json (Google Benchmark) from DIR and prints,
per collective, placement and size >= 4 MiB:
  - the best IPC algorithm's busbw and its ratio to the same algorithm over
    the MPI transport (goal >= 1.5) and to the MPI library baseline (>= 1.0);
  - that busbw as a fraction of single-thread memcpy bandwidth at the same
    size (goal >= 0.6).
busbw is nccl-tests' bus bandwidth in GB/s (1e9 B/s), as in the CSVs.
Two tables: from the median time (the CSVs' busbw) and from the minimum
time, which on a loaded machine is the better estimate of what the
transport does when no other process preempts a rank mid-operation.
"""
import csv
import json
import sys
from pathlib import Path

MIN_BYTES = 4 << 20


def load_rows(path):
    if not path.exists():
        sys.exit(f"ratios.py: missing {path}")
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    needed = {"transport", "collective", "algorithm", "placement", "bytes", "busbw_GBps",
              "time_median_us", "time_min_us"}
    if not rows or not needed <= rows[0].keys():
        sys.exit(f"ratios.py: {path} has no rows or lacks columns {sorted(needed)}")
    return rows


def memcpy_GBps(path):
    """Single-thread memcpy bandwidth by buffer size, in GB/s (1e9 B/s)."""
    if not path.exists():
        sys.exit(f"ratios.py: missing {path}")
    out = {}
    for b in json.loads(path.read_text())["benchmarks"]:
        name = b["name"]
        if name.startswith("BM_memcpy/") and "threads" not in name:
            out[int(name.split("/")[1])] = b["bytes_per_second"] / 1e9
    return out


def busbw(row, stat):
    """busbw from the median (as in the CSV) or rescaled to the minimum time."""
    bw = float(row["busbw_GBps"])
    if stat == "min":
        bw *= float(row["time_median_us"]) / float(row["time_min_us"])
    return bw


def table(ipc, mpi, mem, stat):
    key = lambda r: (r["collective"], r["placement"], int(r["bytes"]))
    mpi_by = {(key(r), r["algorithm"]): busbw(r, stat) for r in mpi}
    print(f"\nfrom the {stat} time:")
    print(f"{'collective':<15}{'place':<6}{'MiB':>5}  {'best ipc':<10}{'busbw':>7}"
          f"{'x same/mpi':>11}{'x mpi-lib':>10}{'/memcpy':>8}")
    best = {}
    for r in ipc:
        k = key(r)
        if k not in best or busbw(r, stat) > busbw(best[k], stat):
            best[k] = r
    for k in sorted(best):
        r = best[k]
        bw = busbw(r, stat)
        same = mpi_by.get((k, r["algorithm"]))
        lib = mpi_by.get((k, "mpi"))
        ceiling = mem.get(k[2]) or (max(mem.values()) if mem else None)
        fmt = lambda x: f"{x:.2f}" if x else "-"
        print(f"{k[0]:<15}{k[1]:<6}{k[2] >> 20:>5}  {r['algorithm']:<10}{bw:>7.2f}"
              f"{fmt(same and bw / same):>11}{fmt(lib and bw / lib):>10}{fmt(ceiling and bw / ceiling):>8}")


def main():
    d = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    ipc = [r for r in load_rows(d / "ipc.csv") if int(r["bytes"]) >= MIN_BYTES]
    mpi = [r for r in load_rows(d / "mpi.csv") if int(r["bytes"]) >= MIN_BYTES]
    mem = memcpy_GBps(d / "memcpy.json")
    print("memcpy (1 thread): " + ", ".join(f"{b >> 20} MiB {g:.2f} GB/s" for b, g in sorted(mem.items())))
    for stat in ("median", "min"):
        table(ipc, mpi, mem, stat)


if __name__ == "__main__":
    main()
