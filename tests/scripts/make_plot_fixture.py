#!/usr/bin/python3
"""Writes a small, synthetic results directory (every CSV plot.py and report.py
read) into DIR.

Times follow an alpha-beta model with a little deterministic jitter, so the
plots have real shapes without any measurement. Rank counts 2, 3, 4 and 8: at
p = 3 the sizes are whole elements per rank (not powers of two), as collbench
run measures them. recommendations.csv and winners.csv follow the format of
`collbench recommend --out` (docs/recommend.md) with made-up
decisions: the fixture tests rendering, not the rule that decides."""
import csv
import os
import random
import sys

ALGOS = {"allreduce": ["ring", "rhd", "mpi"], "allgather": ["ring", "bruck", "mpi"],
         "reduce_scatter": ["ring", "pairwise", "mpi"], "alltoall": ["naive", "pairwise", "mpi"]}
RANKS = (2, 3, 4, 8)
# recommendations.csv's columns in the order collbench recommend writes them.
RECOMMENDATION_COLUMNS = ["transport", "collective", "datatype", "ranks", "from_bytes",
                          "to_bytes", "algorithm", "tied_with", "source", "margin",
                          "speedup_vs_library", "op", "placement", "setting", "model"]
ALPHA, BETA = 2e-6, 1e-10


def elements(coll, size, ranks):
    """(count per rank, bytes) for a nominal size: whole fp32 elements per rank."""
    if coll in ("allreduce", "reduce_scatter"):
        count = max(ranks, (size // 4) // ranks * ranks)
        return count, count * 4
    count = max(1, size // 4 // ranks)
    return count, count * 4 * ranks


def main(out):
    rnd = random.Random(7)
    os.makedirs(os.path.join(out, "fit"), exist_ok=True)
    sweep, preds, winners = [], [], []
    for coll, algos in ALGOS.items():
        for ranks in RANKS:
            times = {}
            for k, algo in enumerate(algos):
                for e in range(3, 25, 3):
                    count, size = elements(coll, 2 ** e, ranks)
                    model = (k + 1) * ALPHA * ranks + BETA * size * (1.4 - 0.2 * k)
                    t = model * (1 + 0.05 * rnd.random())
                    us = t * 1e6
                    busbw = size / t / 1e9
                    times.setdefault(size, {})[algo] = us
                    sweep.append(dict(transport="mpi", collective=coll, algorithm=algo,
                                      datatype="fp32", op="sum" if coll == "allreduce" else "",
                                      placement="out", ranks=ranks, bytes=size, count=count,
                                      iterations=20, time_median_us=us, time_min_us=us * 0.95,
                                      time_mean_us=us * 1.01, time_p95_us=us * 1.1,
                                      time_max_us=us * 1.2, ci_lo_us=us * 0.97,
                                      ci_hi_us=us * 1.04, algbw_GBps=busbw, busbw_GBps=busbw,
                                      wrong=0, oversubscribed=0, host="fixture"))
                    if algo != "mpi":
                        for level, bias in (("global", 1.0), ("calibration", 0.8),
                                            ("calibration+range+copy+concurrency", 0.95)):
                            preds.append(dict(transport="mpi", collective=coll, algorithm=algo,
                                              datatype="fp32", ranks=ranks, bytes=size,
                                              measured_s=t, predicted_s=model * bias,
                                              rel_err=(model * bias - t) / t, params=level))
            for size, per in sorted(times.items()):
                ranked = sorted((a for a in per if a != "mpi"), key=per.get)
                tied = ranked[1] if per[ranked[1]] < per[ranked[0]] * 1.03 else ""
                winners.append(dict(transport="mpi", collective=coll, datatype="fp32",
                                    ranks=ranks, bytes=size, algorithm=ranked[0], tied_with=tied,
                                    source="measured", time_us=per[ranked[0]],
                                    library_time_us=per["mpi"], op="sum", placement="out",
                                    setting=""))
    # p = 16 was not measured: the recommendation predicts it from a calibration.
    for size in (8, 4096, 1 << 20):
        winners.append(dict(transport="mpi", collective="allreduce", datatype="fp32", ranks=16,
                            bytes=size, algorithm="rhd" if size < 4096 else "ring",
                            tied_with="", source="predicted", time_us="", library_time_us="",
                            op="sum", placement="out", setting=""))
    write(os.path.join(out, "sweep-mpi.csv"), sweep)
    write(os.path.join(out, "fit", "predictions.csv"), preds)
    write(os.path.join(out, "winners.csv"), winners)
    common = dict(transport="mpi", collective="allreduce", datatype="fp32", op="sum",
                  placement="out", setting="", model="")
    write(os.path.join(out, "recommendations.csv"), columns=RECOMMENDATION_COLUMNS, rows=[
        dict(common, ranks=4, from_bytes=16, to_bytes=16384, algorithm="rhd", tied_with="",
             source="measured", margin=0.31, speedup_vs_library=1.8),
        dict(common, ranks=4, from_bytes=65536, to_bytes=16777216, algorithm="ring",
             tied_with="rhd|mpi", source="measured", margin="", speedup_vs_library=1.01),
        dict(common, ranks=16, from_bytes=8, to_bytes=1048576, algorithm="rhd", tied_with="",
             source="predicted", margin=0.2, speedup_vs_library="",
             model="calibration.csv (median |err| 5.0% >= 64 KiB)")])
    for coll in ("allreduce", "alltoall"):
        cells = []
        for ranks in (2, 8, 64, 512):
            for e in range(3, 31, 4):
                size = 2 ** e
                times = {"ring": 2 * (ranks - 1) * ALPHA + 2 * BETA * size,
                         "rhd": 2 * ranks.bit_length() * ALPHA + 2 * BETA * size * 1.05,
                         "tree": 2 * ranks.bit_length() * ALPHA
                         + 2 * ranks.bit_length() * BETA * size}
                ranked = sorted(times, key=times.get)
                margin = times[ranked[1]] / times[ranked[0]] - 1
                for algo, t in times.items():
                    cells.append(dict(collective=coll, ranks=ranks, bytes=size, algorithm=algo,
                                      time_s=t, best_algorithm=ranked[0], margin=margin))
        write(os.path.join(out, f"map-{coll}.csv"), cells)
    pair = dict(kind="pair", params="calibration", transport="mpi", collective="allreduce",
                datatype="fp32", op="sum", placement="out", ranks=2, algo_a="ring", algo_b="rhd",
                predicted_crossover_B=4100, measured_crossover_B=8190, predicted_crossings=1,
                measured_crossings=1, predicted_faster_below="rhd", measured_faster_below="rhd",
                bytes="", predicted_best="", measured_best="", predicted_best_measured_s="",
                measured_best_s="", regret="")
    write(os.path.join(out, "fit", "crossovers.csv"),
          [pair, dict(pair, ranks=4, predicted_crossover_B=65500, measured_crossover_B=32800),
           dict(pair, params="calibration+range+copy+concurrency", ranks=3, algo_a="naive", algo_b="ring",
                predicted_crossover_B=2000, measured_crossover_B=3000),
           dict(pair, params="global", collective="alltoall", ranks=8, algo_a="naive",
                algo_b="pairwise", predicted_crossover_B="", measured_crossover_B=512)])
    write(os.path.join(out, "fit", "fit.csv"), [
        dict(scope=scope, transport="mpi", alpha_s=a, beta_s_per_B=b, gamma_s_per_B=5e-11,
             alpha_s_lo=a * 0.9, alpha_s_hi=a * 1.1, beta_s_per_B_lo=b * 0.9,
             beta_s_per_B_hi=b * 1.1, gamma_s_per_B_lo="", gamma_s_per_B_hi="", points=300)
        for scope, a, b in (("global", ALPHA * 1.1, BETA * 0.95), ("calibration", ALPHA, BETA))])
    write(os.path.join(out, "fit", "accuracy.csv"), [
        dict(params=level, transport="mpi", rows_large=120, median_abs_err_large=err,
             rows_small=100, median_abs_err_small=err * 1.5, worst_collective="alltoall",
             worst_collective_median_abs_err=err * 2, picks_right=picks, picks=60,
             median_regret=0.01, worst_regret=0.2, scope="all",
             # collbench fit's targets and verdicts (models/targets.hpp)
             target_median_abs_err_large=0.2, met_median_abs_err_large=int(err <= 0.2),
             target_median_abs_err_small=0.3, met_median_abs_err_small=int(err * 1.5 <= 0.3),
             target_worst_collective=0.35, met_worst_collective=int(err * 2 <= 0.35),
             target_picks=0.9, met_picks=int(picks / 60 >= 0.9), target_median_regret=0.05,
             met_median_regret=1, large_from_B=65536)
        for level, err, picks in (("calibration", 0.2, 40), ("calibration+range+copy+concurrency", 0.06, 55),
                                  ("global", 0.04, 57))])
    # The plots' bands and levels, as collbench fit writes them (models/summary_csv.hpp).
    write(os.path.join(out, "fit", "summary.csv"), [
        dict(kind="error_band", transport="", number=0.25, text=""),
        dict(kind="crossover_band", transport="", number=2, text="")] + [
        dict(kind="shown_level", transport="", number="", text=level)
        for level in ("global", "calibration", "calibration+range+copy+concurrency")])
    write(os.path.join(out, "calibration.csv"),
          [dict(alpha_s=ALPHA, beta_s_per_B=BETA, gamma_s_per_B=5e-11, memcpy_GBps=9.5,
                memcpy_in_cache_GBps=40.0)])


def write(path, rows, columns=None):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns or list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main(sys.argv[1])
