#!/bin/bash
# Interleaved rounds: osu_reduce_scatter 64K-512K, p=2 pinned, MPICH alone vs the library (auto),
# with glibc's defaults and with trimming off on both sides.
O=${OSU:?set OSU to the osu_reduce_scatter binary (OSU 7.4, c/mpi/collective/blocking)}
LIB=${LIB:-$PWD/build/transports/mpi/pmpi/libcollbench-pmpi.so}
CAL=${CAL:-$PWD/results/vm-2026-11-24-3/calibration.csv}
AUTO=(-genv LD_PRELOAD $LIB -genv COLLBENCH_ALGO auto -genv COLLBENCH_PARAMS $CAL)
NOTRIM=(-genv MALLOC_TRIM_THRESHOLD_ 67108864 -genv MALLOC_MMAP_THRESHOLD_ 33554432)
M=${M:-4:1048576}
run() { local name=$1; shift; mpiexec -bind-to core -n 2 "$@" $O -m $M -i 1000 -x 100 -T mpi_float 2>/dev/null | grep -E "^(65536|131072|262144|524288|1048576) " | awk -v n="$name" -v r=$round '{print r","n","$1","$2}'; }
echo "# load $(cat /proc/loadavg)" >&2
for round in 1 2 3 4 5; do
  if [ $((round % 2)) = 1 ]; then run mpich; run lib "${AUTO[@]}"; run mpich-notrim "${NOTRIM[@]}"; run lib-notrim "${NOTRIM[@]}" "${AUTO[@]}";
  else run lib-notrim "${NOTRIM[@]}" "${AUTO[@]}"; run mpich-notrim "${NOTRIM[@]}"; run lib "${AUTO[@]}"; run mpich; fi
done
