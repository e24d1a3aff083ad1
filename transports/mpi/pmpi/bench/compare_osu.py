#!/usr/bin/python3
"""Runs osu_allreduce (unmodified) under libcollbench-pmpi.so with the MPI
library's default and with each named algorithm, in interleaved rounds
(default, rhd, ring, default, rhd, ring, ...), and prints per size the
median latency of each and the ratio algorithm / default: the median of the
per-round ratios and their range over rounds, and the ratio of the best
(lowest) latency over rounds of each: on a shared machine the least
disturbed run.

usage: compare_osu.py BUILD_DIR [--rounds 5] [--algos rhd,ring] [--ranks 2]
                      [-m 4:1048576] [-i ITERATIONS] [-x SKIP]
"""
import argparse
import os
import statistics
import subprocess
import sys


def run_once(build, ranks, algo, sizes, extra):
    env = dict(os.environ)
    env.pop("COLLBENCH_ALGO", None)
    if algo != "default":
        env["COLLBENCH_ALGO"] = algo
    lib = os.path.join(build, "transports/mpi/pmpi/libcollbench-pmpi.so")
    exe = os.path.join(build, "transports/mpi/pmpi/osu_allreduce")
    cmd = ["mpiexec", "-bind-to", "core", "-n", str(ranks), "-genv", "LD_PRELOAD", lib, exe,
           "-m", sizes] + extra
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    result = {}
    for line in out.splitlines():
        fields = line.split()
        if fields and not line.startswith("#"):
            result[int(fields[0])] = float(fields[1])
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--algos", default="rhd,ring")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("-m", default="4:1048576")
    ap.add_argument("-i", type=int, help="osu_allreduce -i (iterations per size)")
    ap.add_argument("-x", type=int, help="osu_allreduce -x (warm-up calls per size)")
    a = ap.parse_args()
    extra = (["-i", str(a.i)] if a.i else []) + (["-x", str(a.x)] if a.x else [])
    algos = ["default"] + [x for x in a.algos.split(",") if x]
    runs = {x: [] for x in algos}
    for r in range(a.rounds):
        for algo in algos:
            runs[algo].append(run_once(a.build, a.ranks, algo, a.m, extra))
        print(f"# round {r + 1}/{a.rounds} done", file=sys.stderr)
    sizes = sorted(runs["default"][0])
    head = f"{'bytes':>9} {'default(us)':>12}"
    for x in algos[1:]:
        head += f" {x + '(us)':>10} {x + '/default':>14} {'range':>13} {'best ratio':>10}"
    print(f"# osu_allreduce, {a.ranks} ranks pinned, {a.rounds} interleaved rounds; "
          "ratio = median over rounds of (algorithm / default), range = min..max, "
          "best ratio = lowest algorithm latency / lowest default latency")
    print(head)
    for s in sizes:
        base = [run[s] for run in runs["default"]]
        line = f"{s:>9} {statistics.median(base):>12.2f}"
        for x in algos[1:]:
            lat = [run[s] for run in runs[x]]
            ratios = [t / b for t, b in zip(lat, base)]
            line += (f" {statistics.median(lat):>10.2f} {statistics.median(ratios):>14.3f}"
                     f" {min(ratios):>6.2f}..{max(ratios):<6.2f} {min(lat) / min(base):>10.3f}")
        print(line)


if __name__ == "__main__":
    main()
