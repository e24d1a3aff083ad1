#!/bin/bash
# reduce_scatter p=4 at 1 MiB (selection: mpi) slower with the library: which part?
# variants: mpich (none), selection (as app_compare: naive below 1 MiB, mpi at 1 MiB),
# preload (library, COLLBENCH_ALGO=mpi: every size MPICH's own call through the interposer)
# Per run: wall time and the TCP retransmits summed over the hosts' namespaces.
cd /work/wt/app
out=$1; rounds=${2:-4}; sizes=${3:-262144:1048576}; mkdir -p $out/logs
P=$PWD/build/transports/mpi/pmpi/libcollbench-pmpi.so
SEL=$PWD/results/app-2ms-200Mbit/collbench-selection-2ms-200Mbit.json
retr() { local s=0; for i in 1 2 3 4 5 6 7 8; do v=$(ip netns exec app-h$i nstat -asz TcpRetransSegs | awk '/TcpRetransSegs/{print $2}'); s=$((s+v)); done; echo $s; }
echo "round,variant,bytes,time_us" > $out/rounds.csv
echo "round,variant,wall_s,retrans" > $out/runs.csv
for r in $(seq 1 $rounds); do
  case $((r % 3)) in 1) vs="mpich selection preload" ;; 2) vs="selection preload mpich" ;; 0) vs="preload mpich selection" ;; esac
  for v in $vs; do
    env=()
    [ $v = selection ] && env=(--env LD_PRELOAD=$P --env COLLBENCH_SELECTION=$SEL --env COLLBENCH_REPORT=1)
    [ $v = preload ] && env=(--env LD_PRELOAD=$P --env COLLBENCH_ALGO=mpi --env COLLBENCH_REPORT=1)
    a=$(retr); t0=$(date +%s.%N)
    bash scripts/testbed.sh exec --name app --np 4 "${env[@]}" -- /tmp/osu/c/mpi/collective/blocking/osu_reduce_scatter -m $sizes -i 10 -x 2 -T mpi_float > $out/logs/$v-$r.log 2>&1
    t1=$(date +%s.%N); b=$(retr)
    echo "$r,$v,$(echo "$t1 - $t0" | bc),$((b-a))" >> $out/runs.csv
    awk -v r=$r -v v=$v '$1 ~ /^[0-9]+$/ && NF >= 2 { print r "," v "," $1 "," $2 }' $out/logs/$v-$r.log >> $out/rounds.csv
  done
done
build/harness/collbench compare-rounds $out/rounds.csv --base mpich --new selection
build/harness/collbench compare-rounds $out/rounds.csv --base mpich --new preload
cat $out/runs.csv
