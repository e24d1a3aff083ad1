#!/usr/bin/env python3
"""Writes a synthetic results CSV of N rows for measuring `collbench fit` at scale.

    python3 scripts/make_big_results.py OUT.csv [--rows N] [--sizes-per-config M]

The rows are ring all-reduce timings over MPI following t = 2 us + S / 5 GB/s
below 64 KiB and 12 us + S / 8 GB/s above (one knee), with 2% multiplicative
noise from a fixed seed. With M sizes per configuration (default: all N rows
in one configuration, the worst case for knee detection) the configurations
differ in rank count, so every row has a distinct key. Sizes step by 4 bytes
(fp32 elements), as `-i 4` would.
"""
import argparse
import random

COLUMNS = ("transport,collective,algorithm,datatype,op,placement,ranks,bytes,count,iterations,"
           "time_median_us,time_min_us,time_mean_us,time_p95_us,time_max_us,ci_lo_us,ci_hi_us,"
           "algbw_GBps,busbw_GBps,wrong,oversubscribed,wait_policy,alpha_s,beta_s_per_B,"
           "gamma_s_per_B,host,timestamp,collbench_version,git_rev,mpi_version")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--sizes-per-config", type=int, default=0)
    a = ap.parse_args()
    per = a.sizes_per_config or a.rows
    rng = random.Random(20261123)
    with open(a.out, "w") as f:
        f.write(COLUMNS + "\n")
        for i in range(a.rows):
            ranks = 2 + i // per
            count = i % per + 1
            size = 4 * count
            t = 2e-6 + size / 5e9 if size < 65536 else 12e-6 + size / 8e9
            us = t * 1e6 * (1 + rng.gauss(0, 0.02))
            algbw = size / (us * 1e-6) / 1e9
            busbw = algbw * 2 * (ranks - 1) / ranks
            f.write(f"mpi,allreduce,ring,fp32,sum,out,{ranks},{size},{count},10,"
                    f"{us:.6g},{us:.6g},{us:.6g},{us:.6g},{us:.6g},{us:.6g},{us:.6g},"
                    f"{algbw:.6g},{busbw:.6g},0,0,spin,,,,bench,2026-11-23T00:00:00Z,0.1.0,"
                    f"synthetic,MPICH Version: 4.0.2\n")


if __name__ == "__main__":
    main()
