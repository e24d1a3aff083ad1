#!/bin/bash
# Naive at p = 4 on the 2 ms / 200 Mbit/s testbed, as run 2026-11-24 13:14-13:26 UTC
# from a clone at 2e0a6aa (repository root as the working directory):
#   bash results/testbed-naive-history-2026-11-24/measure.sh OUTDIR
# 1. A launch that carries at most 4 MiB: naive and ring at 1-4 MiB with the
#    sweep's timing (window start, -n 5 -w 1) and the calibration's (barrier
#    start, -n 20 -w 3), alternating twice.
# 2. The study's 4-16 MiB pass at p = 4 alone (every collective and algorithm,
#    -n 2), with -w 0 as the study runs it and with -w 1.
set -u
O=${1:?usage: measure.sh OUTDIR}
mkdir -p "$O"
T="bash scripts/testbed.sh"
$T up --name cbexp --hosts 8 --latency 2ms --bandwidth 200Mbit || exit 1
trap '$T down --name cbexp' EXIT
for rep in 1 2; do
  for start in window barrier; do
    if [ $start = window ]; then it="-n 5 -w 1"; else it="-n 20 -w 3"; fi
    $T run --name cbexp -- run --coll alltoall,reduce_scatter --algo naive,ring --ranks 4 -b 1M -e 4M -f 2 $it -d float -o sum --placement out --start $start --mode-probe off --csv "$O/$start-$rep.csv" --quiet
  done
done
$T down --name cbexp
$T up --name cbexp --hosts 8 --latency 2ms --bandwidth 200Mbit || exit 1
for w in 0 1; do
  $T run --name cbexp -- run --coll all --algo all --ranks 4 -b 4M -e 16M -f 4 -n 2 -w $w -d float -o sum --placement out --start window --mode-probe off --csv "$O/pass-w$w.csv" --quiet
done
