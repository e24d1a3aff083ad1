#!/usr/bin/env python3
"""Writes a synthetic results CSV of N rows for measuring `collbench fit` at scale.

    python3 scripts/make_big_results.py OUT.csv [--rows N] [--shape SHAPE]
                                       [--sizes-per-config M]

Shapes (each the worst case for some stage of `fit`):
  one      all N rows in one configuration, sizes stepping by 4 bytes (-i 4):
           knee detection on one very long sweep (--sizes-per-config M cuts it
           into configurations of M sizes that differ in rank count).
  grid     2 transports x 4 collectives x every algorithm + the mpi baseline x
           25 sizes (4 B .. 64 MiB by 2, x p for all but all-reduce) x as many
           rank counts as it takes (N rounded up to whole configurations):
           tens of thousands of short configurations, thousands of crossover
           groups.
  repeats  6 all-reduce algorithms at p = 2, 4 x 25 sizes, each size measured
           again and again (identical keys): few configurations, each with tens
           of thousands of rows but only 25 distinct sizes.
  algos    4 collectives x every algorithm at p = 2 x 10,000 linear sizes:
           long sweeps in every crossover group (best choices and crossovers
           over thousands of common sizes).

Times follow a rough alpha-beta model per algorithm (log-depth or linear
rounds) with a knee at 64 KiB and 2% multiplicative noise from a fixed seed,
so fits, knees and crossovers have something to find.
"""
import argparse
import math
import random

COLUMNS = ("transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,iterations,"
           "time_median_us,time_min_us,time_mean_us,time_p95_us,time_max_us,ci_lo_us,ci_hi_us,"
           "algbw_GBps,busbw_GBps,wrong,oversubscribed,wait_policy,alpha_s,beta_s_per_B,"
           "gamma_s_per_B,host,timestamp,collbench_version,git_rev,mpi_version")

# algorithms/registry_table.inc, collective by collective, plus the baseline.
ALGOS = {
    "allreduce": ["naive", "ps", "ring", "tree", "dbtree", "butterfly", "rhd", "mpi"],
    "reduce_scatter": ["naive", "ps", "ring", "tree", "butterfly", "rhd", "pairwise", "mpi"],
    "allgather": ["naive", "ps", "ring", "tree", "butterfly", "rhd", "bruck", "mpi"],
    "alltoall": ["naive", "ps", "ring", "butterfly", "bruck", "pairwise", "mpi"],
}
LOG_DEPTH = {"tree", "dbtree", "butterfly", "rhd", "bruck", "mpi"}


def seconds(algo, p, size):
    """Rough per-algorithm alpha-beta time with one protocol knee."""
    rounds = 2 * max(1, math.ceil(math.log2(p))) if algo in LOG_DEPTH else 2 * (p - 1)
    volume = {"naive": p - 1, "ps": 2 * (p - 1), "tree": 2 * math.log2(max(p, 2)),
              "butterfly": math.log2(max(p, 2))}.get(algo, 2 * (p - 1) / p)
    alpha, beta = (2e-6, 1 / 5e9) if size < 65536 else (12e-6, 1 / 8e9)
    return rounds * alpha + volume * size * beta


class Writer:
    def __init__(self, f, seed):
        self.f, self.rng, self.n = f, random.Random(seed), 0

    def row(self, transport, coll, algo, ranks, count):
        size = 4 * count * (1 if coll == "allreduce" else ranks)
        us = seconds(algo, ranks, size) * 1e6 * (1 + self.rng.gauss(0, 0.02))
        lo, hi = us * 0.99, us * 1.01
        algbw = size / (us * 1e-6) / 1e9
        busbw = algbw * 2 * (ranks - 1) / ranks
        op = "" if coll in ("allgather", "alltoall") else "sum"
        self.f.write(f"{transport},{coll},{algo},fp32,{op},out,{ranks},{size},{count},10,"
                     f"{us:.6g},{us:.6g},{us:.6g},{us:.6g},{us:.6g},{lo:.6g},{hi:.6g},"
                     f"{algbw:.6g},{busbw:.6g},0,0,spin,,,,bench,2026-11-23T00:00:00Z,0.1.0,"
                     f"synthetic,MPICH Version: 4.0.2\n")
        self.n += 1


def shape_one(w, rows, per):
    for i in range(rows):
        w.row("mpi", "allreduce", "ring", 2 + i // per, i % per + 1)


def shape_grid(w, rows):
    p = 2
    while True:
        for transport in ("mpi", "ipc"):
            for coll, algos in ALGOS.items():
                for algo in algos:
                    for k in range(25):
                        w.row(transport, coll, algo, p, 2 ** k)
                    if w.n >= rows:  # whole configurations only (a fit needs 3 sizes)
                        return
        p += 1


def shape_repeats(w, rows):
    while True:
        for p in (2, 4):
            for algo in ("ring", "tree", "butterfly", "rhd", "naive", "mpi"):
                for k in range(25):
                    w.row("mpi", "allreduce", algo, p, 2 ** k)
                    if w.n == rows:
                        return


def shape_algos(w, rows):
    per = max(3, rows // sum(len(a) for a in ALGOS.values()))
    while True:
        for coll, algos in ALGOS.items():
            for algo in algos:
                for count in range(1, per + 1):
                    w.row("mpi", coll, algo, 2, count)
                    if w.n == rows:
                        return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--shape", choices=("one", "grid", "repeats", "algos"), default="one")
    ap.add_argument("--sizes-per-config", type=int, default=0, help="shape one only")
    a = ap.parse_args()
    if a.rows < 1:
        ap.error(f"--rows {a.rows}: give a row count >= 1")
    with open(a.out, "w") as f:
        f.write(COLUMNS + "\n")
        w = Writer(f, 20261123)
        if a.shape == "one":
            shape_one(w, a.rows, a.sizes_per_config or a.rows)
        elif a.shape == "grid":
            shape_grid(w, a.rows)
        elif a.shape == "repeats":
            shape_repeats(w, a.rows)
        else:
            shape_algos(w, a.rows)


if __name__ == "__main__":
    main()
