#!/usr/bin/python3
"""Writes a small, synthetic results directory (every CSV plot.py reads) into DIR.

Times follow an alpha-beta model with a little deterministic jitter, so the
plots have real shapes without any measurement."""
import csv
import os
import random
import sys

ALGOS = {"allreduce": ["ring", "rhd", "mpi"], "allgather": ["ring", "bruck"]}
ALPHA, BETA = 2e-6, 1e-10


def main(out):
    rnd = random.Random(7)
    os.makedirs(os.path.join(out, "fit"), exist_ok=True)
    sweep, preds = [], []
    for coll, algos in ALGOS.items():
        for ranks in (2, 4):
            for k, algo in enumerate(algos):
                for e in range(3, 25, 3):
                    size = 2 ** e
                    model = (k + 1) * ALPHA * ranks + BETA * size * (1 + 0.2 * k)
                    t = model * (1 + 0.05 * rnd.random())
                    us = t * 1e6
                    busbw = size / t / 1e9
                    sweep.append(dict(transport="mpi", collective=coll, algorithm=algo,
                                      datatype="fp32", op="sum" if coll == "allreduce" else "",
                                      placement="out", ranks=ranks, bytes=size, count=size // 4,
                                      iterations=20, time_median_us=us, time_min_us=us * 0.95,
                                      time_mean_us=us * 1.01, time_p95_us=us * 1.1,
                                      time_max_us=us * 1.2, ci_lo_us=us * 0.97,
                                      ci_hi_us=us * 1.04, algbw_GBps=busbw, busbw_GBps=busbw,
                                      wrong=0, oversubscribed=0))
                    if algo != "mpi":
                        preds.append(dict(transport="mpi", collective=coll, algorithm=algo,
                                          datatype="fp32", ranks=ranks, bytes=size,
                                          measured_s=t, predicted_s=model,
                                          rel_err=(model - t) / t, params="global"))
    write(os.path.join(out, "sweep-mpi.csv"), sweep)
    write(os.path.join(out, "fit", "predictions.csv"), preds)
    cells = []
    for ranks in (2, 8, 64, 512):
        for e in range(3, 31, 4):
            size = 2 ** e
            times = {"ring": 2 * (ranks - 1) * ALPHA + 2 * BETA * size,
                     "rhd": 2 * ranks.bit_length() * ALPHA + 2 * BETA * size * 1.05,
                     "tree": 2 * ranks.bit_length() * ALPHA + 2 * ranks.bit_length() * BETA * size}
            ranked = sorted(times, key=times.get)
            margin = times[ranked[1]] / times[ranked[0]] - 1
            for algo, t in times.items():
                cells.append(dict(collective="allreduce", ranks=ranks, bytes=size, algorithm=algo,
                                  time_s=t, best_algorithm=ranked[0], margin=margin))
    write(os.path.join(out, "map-allreduce.csv"), cells)
    pair = dict(kind="pair", params="calibration", transport="mpi", collective="allreduce",
                datatype="fp32", op="sum", placement="out", ranks=2, algo_a="ring", algo_b="rhd",
                predicted_crossover_B=4100, measured_crossover_B=8190, predicted_crossings=1,
                measured_crossings=1, predicted_faster_below="rhd", measured_faster_below="rhd",
                bytes="", predicted_best="", measured_best="", predicted_best_measured_s="",
                measured_best_s="", regret="")
    write(os.path.join(out, "fit", "crossovers.csv"),
          [pair, dict(pair, ranks=4, predicted_crossover_B=65500, measured_crossover_B=32800)])
    write(os.path.join(out, "calibration.csv"),
          [dict(alpha_s=ALPHA, beta_s_per_B=BETA, gamma_s_per_B=5e-11, memcpy_GBps=9.5,
                memcpy_in_cache_GBps=40.0)])


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main(sys.argv[1])
