#!/usr/bin/env bash
# The speed figures of harness/USAGE.md, from one run with 2 ranks:
#  1. harness overhead: `collbench run --algo mpi -n 2000` vs a bare MPI_Allreduce
#     loop (tests/benchmarks/bare_mpi_allreduce.cpp: same timing method, no
#     harness), at the same sizes, one right after the other;
#  2. the best collbench schedule vs MPI_Allreduce in one allreduce sweep over
#     every algorithm: busbw for sizes >= 1 MiB, latency at 8 B.
# Ranks are pinned to distinct cores (-bind-to core): on a shared machine two
# spinning ranks left on one core would otherwise take turns by timeslices.
# usage: harness/measure_speed.sh [BUILD_DIR] [OUT_DIR]   (default: build, /tmp/collbench-speed)
set -euo pipefail
build=${1:-build}
out=${2:-/tmp/collbench-speed}
mkdir -p "$out"
run2() { mpiexec -bind-to core -n 2 "$@"; }

sizes="8 64 512 4096 32768 262144 2097152 16777216"
# shellcheck disable=SC2086
run2 "$build/tests/benchmarks/bare_mpi_allreduce" 2000 $sizes > "$out/bare.txt"
run2 "$build/harness/collbench" run --quiet --coll allreduce --algo mpi -n 2000 \
  -b 8 -e 16M -f 8 -d float -o sum --placement out --csv "$out/mpi.csv" > /dev/null
run2 "$build/harness/collbench" run --quiet --coll allreduce --algo all \
  -b 8 -e 16M -f 2 -d float -o sum --placement out --csv "$out/allreduce.csv" > "$out/table.txt"

echo "1. harness overhead: collbench --algo mpi (-n 2000) vs the bare MPI_Allreduce loop"
awk -F, -v bare="$out/bare.txt" '
  BEGIN { while ((getline line < bare) > 0) { split(line, f, " "); if (f[1] ~ /^[0-9]+$/) b[f[1]] = f[2] } }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; printf "%10s %12s %12s %8s\n", "bytes", "bare_us", "collbench_us", "ratio"; next }
  { s = $col["bytes"]; t = $col["time_median_us"]; printf "%10d %12.3f %12.3f %8.3f\n", s, b[s], t, t / b[s] }
' "$out/mpi.csv" | tee "$out/overhead.txt"

echo "2. best schedule vs MPI_Allreduce (one sweep, every algorithm + mpi)"
awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    s = $col["bytes"]; algo = $col["algorithm"]; t = $col["time_median_us"]; bw = $col["busbw_GBps"]
    if (algo == "mpi") { mpi_t[s] = t; mpi_bw[s] = bw }
    else if (!(s in best_t) || t < best_t[s]) { best_t[s] = t; best_a[s] = algo; best_bw[s] = bw }
  }
  END {
    printf "%10s %10s %10s %10s %8s\n", "bytes", "best", "best_GBps", "mpi_GBps", "ratio"
    for (s = 1048576; s <= 16777216; s *= 2)
      if (s in mpi_bw) printf "%10d %10s %10.3f %10.3f %8.3f\n", s, best_a[s], best_bw[s], mpi_bw[s], best_bw[s] / mpi_bw[s]
    printf "latency at 8 B: best schedule %s %.3f us vs MPI_Allreduce %.3f us: ratio %.3f\n", best_a[8], best_t[8], mpi_t[8], best_t[8] / mpi_t[8]
  }' "$out/allreduce.csv" | tee "$out/vs_mpi.txt"
