#!/usr/bin/env bash
# The speed figures of harness/USAGE.md, from one run with 2 ranks:
#  1. harness overhead: `collbench run --algo mpi` vs a bare MPI_Allreduce loop
#     (tests/benchmarks/bare_mpi_allreduce.cpp, same timing method, no harness);
#  2. the best collbench schedule vs MPI_Allreduce: busbw for sizes >= 1 MiB,
#     latency at 8 B.
# usage: harness/measure_speed.sh [BUILD_DIR] [OUT_DIR]   (default: build, /tmp/collbench-speed)
set -euo pipefail
build=${1:-build}
out=${2:-/tmp/collbench-speed}
mkdir -p "$out"
mpiexec -n 2 "$build/tests/benchmarks/bare_mpi_allreduce" 2000 \
  8 64 512 4096 32768 262144 1048576 2097152 4194304 8388608 16777216 | tee "$out/bare.txt"
mpiexec -n 2 "$build/harness/collbench" run --quiet --coll allreduce --algo all \
  -b 8 -e 16M -f 2 -d float -o sum --placement out --csv "$out/allreduce.csv" > "$out/table.txt"
awk -F, -v bare="$out/bare.txt" '
  BEGIN { while ((getline line < bare) > 0) { split(line, f, " "); if (f[1] ~ /^[0-9]+$/) b[f[1]] = f[2] } }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    bytes = $col["bytes"]; algo = $col["algorithm"]; t = $col["time_median_us"]; bw = $col["busbw_GBps"]
    if (algo == "mpi") { mpi_t[bytes] = t; mpi_bw[bytes] = bw }
    else if (!(bytes in best_t) || t < best_t[bytes]) { best_t[bytes] = t; best_a[bytes] = algo; best_bw[bytes] = bw }
  }
  END {
    printf "%10s %12s %12s %8s | %10s %10s %10s %8s\n", "bytes", "bare_us", "cb_mpi_us", "ratio", "best", "best_GBps", "mpi_GBps", "bw_ratio"
    for (s = 8; s <= 16777216; s *= 2) if (s in mpi_t) {
      r = (s in b) ? sprintf("%8.3f", mpi_t[s] / b[s]) : "       -"
      printf "%10d %12s %12.3f %s | %10s %10.3f %10.3f %8.3f\n", s, (s in b) ? b[s] : "-", mpi_t[s], r, best_a[s], best_bw[s], mpi_bw[s], (mpi_bw[s] > 0 ? best_bw[s] / mpi_bw[s] : 0)
    }
    printf "latency at 8 B: best schedule %s %.3f us vs MPI_Allreduce %.3f us: ratio %.3f\n", best_a[8], best_t[8], mpi_t[8], best_t[8] / mpi_t[8]
  }' "$out/allreduce.csv" | tee "$out/summary.txt"
