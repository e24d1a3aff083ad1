#!/usr/bin/python3
"""summary.py OUTDIR LATENCY_US: per sweep of measure.sh, the fitted global α against
configured + stack overhead (probe.csv), the late iterations, the load, and the
smallest size per p in units of the expected α."""
import csv, glob, os, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "testbed"))
import report  # noqa: E402
d, lat = sys.argv[1], float(sys.argv[2]) * 1e-6
probe = report.read_csv(os.path.join(d, "probe.csv"))[0]
cal = report.read_csv(os.path.join(d, "calibration.csv"))[0]
over = float(probe["alpha_s"])
exp = lat + over
print(f"configured {lat*1e6:.0f} µs + stack {over*1e6:.1f} µs = expected {exp*1e6:.1f} µs; "
      f"calibrated (ping-pong) {float(cal['alpha_s'])*1e6:.1f} µs")
for f in sorted(glob.glob(os.path.join(d, "fit-*", "fit.csv"))):
    name = os.path.basename(os.path.dirname(f))[4:]
    fit = report.read_csv(f)
    g = next(r for r in fit if r["scope"] == "global" and r["transport"] == "mpi")
    a = float(g["alpha_s"])
    rows = report.read_csv(os.path.join(d, name + ".csv"))
    late = sum(int(r["late"]) for r in rows if r.get("late"))
    its = sum(int(r["iterations"]) for r in rows)
    loads = [float(r["load_avg_1m"]) for r in rows if r.get("load_avg_1m")]
    print(f"{name}: fitted α {a*1e6:.1f} µs ({100*(a/exp-1):+.1f}% vs expected), "
          f"{g['points']} p = 2 rows; "
          f"late {late} of {its + late} iterations; load 1m median {statistics.median(loads):.1f} "
          f"(min {min(loads):.1f}, max {max(loads):.1f})")
    sched = [r for r in rows if r["algorithm"] != "mpi"]
    # Smallest-size time in expected α per p (median over algorithms).
    byp = {}
    for r in sched:
        byp.setdefault(int(r["ranks"]), []).append(r)
    parts = []
    for p, rs in sorted(byp.items()):
        small = min(int(r["bytes"]) for r in rs)
        vals = [float(r["time_median_us"]) * 1e-6 / exp for r in rs if int(r["bytes"]) == small]
        parts.append(f"p={p}: {statistics.median(vals):.2f}")
    print("   smallest size, median over algorithms, in expected α: " + ", ".join(parts))
