#!/usr/bin/env bash
# Stock OSU on this machine (p = 2, pinned) under three variants in
# interleaved rounds, the order rotating every round: MPICH alone (`none`),
# an empty library preloaded (`empty`: what loading any extra shared object
# costs), and libcollbench-pmpi.so passing every call to MPI (`library`,
# COLLBENCH_ALGO=mpi: MPICH's call behind the interposer). `collbench
# compare-rounds` gives none / empty and none / library per size, so the
# library's own cost on a passed call is told apart from the launch's.
# With AUTO_PARAMS=FILE (a calibration with its fit beside it) a fourth
# variant `auto` runs the library's COLLBENCH_ALGO=auto priced from FILE.
#
#   transports/mpi/pmpi/bench/preload_control.sh OSU_DIR OUT [ROUNDS] [SIZES] [BENCHES]
#
# Defaults: 11 rounds, sizes 4:4096, benches osu_allgather,osu_reduce_scatter.
# Writes OUT/rounds-BENCH.csv, OUT/empty-BENCH.csv, OUT/library-BENCH.csv
# (compare-rounds' tables, base none), OUT/commands.txt and OUT/logs/.
set -Eeuo pipefail
usage="usage: preload_control.sh OSU_DIR OUT [ROUNDS] [MIN:MAX] [BENCH,BENCH...]"
[ $# -ge 2 ] || { echo "preload_control: $usage" >&2; exit 2; }
osu=$1 out=$2 rounds=${3:-11} sizes=${4:-4:4096} benches=${5:-osu_allgather,osu_reduce_scatter}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "preload_control: ROUNDS '$rounds' is not a positive integer" >&2; exit 2; }
[[ $sizes =~ ^[0-9]+:[0-9]+$ ]] || { echo "preload_control: sizes '$sizes' are not MIN:MAX (bytes)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../../../.." && pwd)
build=${CB_BUILD_DIR:-$root/build}
library=$build/transports/mpi/pmpi/libcollbench-pmpi.so
empty=$build/transports/mpi/pmpi/libcollbench-empty-preload.so
IFS=, read -r -a bench_list <<<"$benches"
for f in "$library" "$empty"; do [ -f "$f" ] || { echo "preload_control: $f is missing (bash scripts/build.sh)" >&2; exit 2; }; done
for b in "${bench_list[@]}"; do
  [ -x "$osu/$b" ] || { echo "preload_control: '$osu/$b' is not an OSU benchmark binary (OSU_DIR: the blocking collectives' directory)" >&2; exit 2; }
done
mkdir -p "$out/logs"
{ echo "# preload_control.sh $*"; echo "# this machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), mpiexec -bind-to core -n 2"; } >"$out/commands.txt"
for b in "${bench_list[@]}"; do echo "round,variant,bytes,time_us" >"$out/rounds-$b.csv"; done
variants=(none empty library)
[ -z "${AUTO_PARAMS:-}" ] || variants+=(auto)
[ -z "${AUTO_PARAMS:-}" ] || [ -f "$AUTO_PARAMS" ] || { echo "preload_control: AUTO_PARAMS '$AUTO_PARAMS' is not a file" >&2; exit 2; }
for r in $(seq 1 "$rounds"); do
  k=$(((r - 1) % ${#variants[@]}))
  for v in "${variants[@]:$k}" "${variants[@]:0:$k}"; do
    env=()
    [ "$v" = empty ] && env=(-genv LD_PRELOAD "$empty")
    [ "$v" = library ] && env=(-genv LD_PRELOAD "$library" -genv COLLBENCH_ALGO mpi)
    [ "$v" = auto ] && env=(-genv LD_PRELOAD "$library" -genv COLLBENCH_ALGO auto -genv COLLBENCH_PARAMS "$AUTO_PARAMS")
    for b in "${bench_list[@]}"; do
      log=$out/logs/$b-$v-$r.log
      mpiexec -bind-to core -n 2 "${env[@]}" "$osu/$b" -m "$sizes" -i 10000 -x 1000 >"$log" 2>&1
      awk -v r="$r" -v v="$v" '$1 ~ /^[0-9]+$/ && NF >= 2 { print r "," v "," $1 "," $2 }' "$log" >>"$out/rounds-$b.csv"
    done
  done
done
for b in "${bench_list[@]}"; do
  for v in "${variants[@]:1}"; do
    echo "## $b: none / $v"
    "$build/harness/collbench" compare-rounds "$out/rounds-$b.csv" --base none --new "$v" --csv "$out/$v-$b.csv"
  done
done
