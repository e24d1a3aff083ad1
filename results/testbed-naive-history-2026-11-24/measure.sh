#!/bin/bash
# Naive at p = 4 on the 2 ms / 200 Mbit/s testbed, as run 2026-11-24 13:14-13:46 UTC
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
$T down --name cbexp
# 3. (13:33-13:35 UTC) naive alone, all-gather then all-to-all at 4 MiB, or at 4 and 16 MiB,
#    alternating, each its own launch: retransmitted segments (nstat TcpRetransSegs,
#    summed over the 8 hosts) and tbf drops (tc -s, every qdisc) before and after each,
#    in hist-counters.txt.
$T up --name cbexp --hosts 8 --latency 2ms --bandwidth 200Mbit || exit 1
counters() {
  local r=0 d=0 x
  for i in $(seq 1 8); do
    x=$(ip netns exec cbexp-h$i nstat -az TcpRetransSegs | awk '/TcpRetransSegs/{print $2}'); r=$((r + ${x:-0}))
    x=$(ip netns exec cbexp-h$i tc -s qdisc show dev eth0 | awk '/dropped/{gsub(",","",$7); s+=$7} END{print s+0}'); d=$((d + x))
  done
  x=$(ip netns exec cbexp-br tc -s qdisc show | awk '/dropped/{gsub(",","",$7); s+=$7} END{print s+0}'); d=$((d + x))
  echo "retrans=$r drops=$d"
}
n=0
for e in 4M 16M 4M 16M; do  # "small" and "big" in hist-counters.txt
  n=$((n + 1)); before=$(counters)
  $T run --name cbexp -- run --coll allgather,alltoall --algo naive --ranks 4 -b 4M -e $e -f 4 -n 5 -w 1 -d float -o sum --placement out --start window --mode-probe off --csv "$O/hist-$n-$e.csv" --quiet
  echo "$e: before $before after $(counters)"
done
$T down --name cbexp
# 4. (13:36-13:38 UTC) all-reduce then reduce-scatter at 4 and 16 MiB, -n 2 -w 0 as the
#    study, naive alone and beside ring or mpi.
$T up --name cbexp --hosts 8 --latency 2ms --bandwidth 200Mbit || exit 1
for algos in naive naive,ring naive,mpi; do
  $T run --name cbexp -- run --coll allreduce,reduce_scatter --algo $algos --ranks 4 -b 4M -e 16M -f 4 -n 2 -w 0 -d float -o sum --placement out --start window --mode-probe off --csv "$O/bisect-${algos//,/-}.csv" --quiet
done
$T down --name cbexp
# 5. (13:39-13:43 UTC) the same with a warm-up run (-w 1): naive alone, beside ps and tree,
#    beside butterfly and rhd, and every algorithm.
$T up --name cbexp --hosts 8 --latency 2ms --bandwidth 200Mbit || exit 1
for algos in naive naive,ps,tree naive,butterfly,rhd all; do
  $T run --name cbexp -- run --coll allreduce,reduce_scatter --algo $algos --ranks 4 -b 4M -e 16M -f 4 -n 2 -w 1 -d float -o sum --placement out --start window --mode-probe off --csv "$O/bisect-w1-${algos//,/-}.csv" --quiet
done
