#!/bin/bash
# Stock osu_reduce_scatter on a testbed (`testbed.sh up --name NAME --hosts 8`) under up to
# three variants, interleaved round by round in a rotating order, with each run's wall time and
# the TCP retransmits summed over the hosts' namespaces: to tell which part of a slower library
# run is the interposer and which the selection (docs/application.md).
#   mpich, mpich2  MPICH alone (two names, to compare MPICH against itself)
#   selection      the library with COLLBENCH_SELECTION=FILE
#   preload        the library with COLLBENCH_ALGO=mpi: MPICH's own call through the interposer
# usage: variant_rounds.sh NAME OUT "V1 V2 V3" SELECTION_JSON [ROUNDS] [SIZES]
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: variant_rounds.sh NAME OUT \"V1 V2 V3\" SELECTION_JSON [ROUNDS] [SIZES]" >&2; exit 2; }
name=$1 out=$2 variants=($3) sel=$4 rounds=${5:-4} sizes=${6:-262144:1048576}
[ ${#variants[@]} -eq 3 ] || { echo "variant_rounds.sh: '$3': give three variants (accepted: mpich, mpich2, selection, preload)" >&2; exit 2; }
for v in "${variants[@]}"; do
  case $v in mpich|mpich2|selection|preload) ;; *) echo "variant_rounds.sh: variant '$v' (accepted: mpich, mpich2, selection, preload)" >&2; exit 2 ;; esac
done
osu=${OSU:-/tmp/osu/c/mpi/collective/blocking}
lib=$PWD/build/transports/mpi/pmpi/libcollbench-pmpi.so
mkdir -p "$out/logs"
retransmits() {
  local s=0 ns v
  for ns in $(ip netns list | awk -v p="$name-h" 'index($1, p) == 1 {print $1}'); do
    v=$(ip netns exec "$ns" nstat -asz TcpRetransSegs | awk '/TcpRetransSegs/{print $2}')
    s=$((s + v))
  done
  echo $s
}
echo "round,variant,bytes,time_us" > "$out/rounds.csv"
echo "round,variant,wall_s,retrans" > "$out/runs.csv"
for r in $(seq 1 "$rounds"); do
  k=$(((r - 1) % 3))  # rotate the order so that no variant always runs first
  for v in "${variants[@]:$k}" "${variants[@]:0:$k}"; do
    env=()
    [ "$v" = selection ] && env=(--env "LD_PRELOAD=$lib" --env "COLLBENCH_SELECTION=$sel" --env COLLBENCH_REPORT=1)
    [ "$v" = preload ] && env=(--env "LD_PRELOAD=$lib" --env COLLBENCH_ALGO=mpi --env COLLBENCH_REPORT=1)
    a=$(retransmits); t0=$(date +%s.%N)
    bash scripts/testbed.sh exec --name "$name" --np 4 "${env[@]}" -- "$osu/osu_reduce_scatter" \
      -m "$sizes" -i 10 -x 2 -T mpi_float > "$out/logs/$v-$r.log" 2>&1
    t1=$(date +%s.%N); b=$(retransmits)
    echo "$r,$v,$(echo "$t1 - $t0" | bc),$((b - a))" >> "$out/runs.csv"
    awk -v r="$r" -v v="$v" '$1 ~ /^[0-9]+$/ && NF >= 2 { print r "," v "," $1 "," $2 }' \
      "$out/logs/$v-$r.log" >> "$out/rounds.csv"
  done
done
for v in "${variants[@]:1}"; do
  build/harness/collbench compare-rounds "$out/rounds.csv" --base "${variants[0]}" --new "$v"
done
