#!/usr/bin/env bash
# The IPC transport's speed benchmark (issue: IPC/host vs the MPI transport and
# MPI's own collectives for messages >= 4 MiB, and busbw vs memcpy bandwidth),
# in one run: memcpy bandwidth, then the same sweep over ipc and over mpi
# (with the `mpi` baseline), then the ratios (ratios.py).
#   usage: transports/ipc/bench/compare.sh [BUILD_DIR] [OUT_DIR] [extra collbench run flags]
#   PLACEMENT=in|out|both (default out) picks the buffer placement.
set -euo pipefail
build=${1:-build}
out=${2:-$(mktemp -d /tmp/collbench-ipc-bench.XXXXXX)}
shift $(( $# > 2 ? 2 : $# )) || true
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
sweep=(--coll all --algo all -b 4M -e 64M -f 4 -d float -o sum --placement "${PLACEMENT:-out}" "$@")

"$build/transports/ipc/ipc_memcpy_bench" --benchmark_format=json --benchmark_out="$out/memcpy.json" \
  --benchmark_out_format=json >/dev/null
mpiexec -n 2 "$build/harness/collbench" run --transport ipc --mem host "${sweep[@]}" --csv "$out/ipc.csv" >"$out/ipc.txt"
mpiexec -n 2 "$build/harness/collbench" run --transport mpi "${sweep[@]}" --csv "$out/mpi.csv" >"$out/mpi.txt"
/usr/bin/python3 "$here/ratios.py" "$out" | tee "$out/ratios.txt"
echo "results in $out" >&2
