#!/bin/bash
O=${OSU:?set OSU to the osu_reduce_scatter binary (OSU 7.4, c/mpi/collective/blocking)}
LIB=${LIB:-$PWD/build/transports/mpi/pmpi/libcollbench-pmpi.so}
CAL=${CAL:-$PWD/results/vm-2026-11-24-3/calibration.csv}
AUTO=(-genv LD_PRELOAD $LIB -genv COLLBENCH_ALGO auto -genv COLLBENCH_PARAMS $CAL)
NOTRIM=(-genv MALLOC_TRIM_THRESHOLD_ 67108864 -genv MALLOC_MMAP_THRESHOLD_ 33554432)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; cd "$WORK"  # strace's per-rank files
run() { # name m args...
  local name=$1 m=$2; shift 2; rm -f tr.*
  local res=$(mpiexec -bind-to core -n 2 "$@" strace -f -qq -o tr -ff -e trace=brk $O -m $m -i 200 -x 20 -T mpi_float 2>&1 | grep -E "^(65536|131072|262144|524288|1048576) " | awk '{printf "%s %s | ", $1, $2}')
  local brk=$(cat tr.* | grep -c "^brk" ); echo "$name -m $m: $res brk(all ranks)=$brk"; }
echo "# load $(cat /proc/loadavg)"
for r in 1 2; do
  run "mpich alone" 4:4194304
  run "lib auto" 4:4194304 "${AUTO[@]}"
  run "mpich alone, no trim" 4:4194304 "${NOTRIM[@]}"
  run "lib auto, no trim" 4:4194304 "${NOTRIM[@]}" "${AUTO[@]}"
  run "mpich alone" 131072:131072
  run "lib auto" 131072:131072 "${AUTO[@]}"
  run "mpich alone, no trim" 131072:131072 "${NOTRIM[@]}"
  run "lib auto, no trim" 131072:131072 "${NOTRIM[@]}" "${AUTO[@]}"
done
