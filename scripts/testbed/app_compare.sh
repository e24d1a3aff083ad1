#!/usr/bin/env bash
# An unmodified MPI application on the testbed, run as it is (MPICH's own
# collectives) and with libcollbench-pmpi.so preloaded and a selection file
# (COLLBENCH_SELECTION, e.g. recommend's collbench-selection.json, or
# COLLBENCH_ALGO=auto with COLLBENCH_PARAMS), in interleaved rounds; the per-size ratio MPICH time / collbench time with its
# spread comes from `collbench compare-rounds` (this script only runs the
# programs and reformats their output).
#
#   scripts/testbed/app_compare.sh (--selection FILE | --auto PARAMS) --out DIR
#       [--name NAME | --host] [--np K] [--rounds R] [--osu DIR]
#       [--bench osu_allreduce,osu_allgather,...] [-m MIN:MAX] [-i ITERATIONS] [-x WARMUP]
#
# The testbed must be up (scripts/testbed.sh up --name NAME ...); --host runs
# on this machine instead, `mpiexec -bind-to core -n K` (K default 2).
# --auto PARAMS: the library's `auto` priced from PARAMS (a calibration file or
# a study's fit/fit.csv, whose predictions.csv beside it gives the validated
# error that do-no-harm uses; transports/mpi/pmpi/README.md). --osu is
# the directory holding the OSU collective binaries (default: OSU_DIR, else
# build/transports/mpi/pmpi, whose osu_allreduce follows OSU's method).
# Round r runs every benchmark without, then with the library (the order
# swaps every round), so a drift of the machine reaches both variants.
# Writes DIR/rounds-BENCH.csv (round,variant,bytes,time_us: OSU's average
# latency), DIR/ratios-BENCH.csv (compare-rounds), DIR/app_compare.csv (all
# benchmarks: bench,ranks + compare-rounds' columns), DIR/calls-BENCH.csv
# (round,collective,ran,size,calls: the library's COLLBENCH_REPORT counters of
# rank 0 from one untimed run before the rounds, round 0; ran = the algorithm
# or "fallback: REASON"), DIR/summary.txt and
# each run's output under DIR/logs. Bad arguments: one line, exit 2.
set -Eeuo pipefail

root_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${CB_BUILD_DIR:-$root_dir/build}
# shellcheck source=scripts/testbed/compare_args.sh
. "$root_dir/scripts/testbed/compare_args.sh"

name=cbtb; np=""; rounds=5; osu=${OSU_DIR:-$build_dir/transports/mpi/pmpi}
benches=osu_allreduce; sizes=4:1048576; iterations=20; warmup=2; selection=""; auto=""; out=""
host=0
while [ $# -gt 0 ]; do
  case $1 in
    --name) need "$1" $#; name=$2; shift 2 ;;
    --np) need "$1" $#; int_in --np "$2" 2 64; np=$2; shift 2 ;;
    --rounds) need "$1" $#; int_in --rounds "$2" 1 100; rounds=$2; shift 2 ;;
    --osu) need "$1" $#; osu=$2; shift 2 ;;
    --bench) need "$1" $#; benches=$2; shift 2 ;;
    --selection) need "$1" $#; selection=$2; shift 2 ;;
    --auto) need "$1" $#; auto=$2; shift 2 ;;
    --host) host=1; shift ;;
    --out) need "$1" $#; out=$2; shift 2 ;;
    -m) need "$1" $#; [[ $2 =~ ^[0-9]+:[0-9]+$ ]] || die_usage "-m '$2' is not MIN:MAX (bytes)"
      sizes=$2; shift 2 ;;
    -i) need "$1" $#; int_in -i "$2" 1 100000; iterations=$2; shift 2 ;;
    -x) need "$1" $#; int_in -x "$2" 0 100000; warmup=$2; shift 2 ;;
    *) die_usage "unknown argument '$1' (see the top of $0)" ;;
  esac
done
[ -n "$selection$auto" ] || die_usage "--selection FILE or --auto PARAMS is required (recommend --out DIR writes collbench-selection.json)"
[ -z "$selection" ] || [ -z "$auto" ] || die_usage "--selection and --auto exclude each other"
[ -z "$selection" ] || [ -f "$selection" ] || die_usage "--selection '$selection' is not a file"
[ -z "$auto" ] || [ -f "$auto" ] || die_usage "--auto '$auto' is not a file"
[ -n "$out" ] || die_usage "--out DIR is required"
[ ! -e "$out" ] || die_usage "--out '$out' exists (give a new directory)"
IFS=, read -r -a bench_list <<<"$benches"
for b in "${bench_list[@]}"; do
  case $b in osu_allreduce|osu_reduce_scatter|osu_allgather|osu_alltoall) ;;
    *) die_usage "--bench '$b' (accepted: osu_allreduce, osu_reduce_scatter, osu_allgather, osu_alltoall)" ;;
  esac
  [ -x "$osu/$b" ] || die_usage "--osu: '$osu/$b' is not an executable (build OSU, or give --osu DIR)"
done
pmpi=$build_dir/transports/mpi/pmpi/libcollbench-pmpi.so
collbench=$build_dir/harness/collbench
[ -f "$pmpi" ] && [ -x "$collbench" ] || die_usage "$pmpi or $collbench is not built (bash scripts/build.sh)"
testbed=$root_dir/scripts/testbed.sh
if [ "$host" = 1 ]; then
  command -v mpiexec >/dev/null || die_usage "--host needs mpiexec on PATH"
else
  bash "$testbed" status --name "$name" >/dev/null || die_usage "testbed '$name' is not up"
fi
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
if [ -n "$selection" ]; then
  selection=$(absolute "$selection"); library_env=("COLLBENCH_SELECTION=$selection")
else
  auto=$(absolute "$auto"); library_env=(COLLBENCH_ALGO=auto "COLLBENCH_PARAMS=$auto")
fi

mkdir -p "$out/logs"
np_flag=(); [ -z "$np" ] || np_flag=(--np "$np")
if [ "$host" = 1 ]; then ranks=${np:-2}; else ranks=$(testbed_ranks "$testbed" "$name" "$np"); fi
{
  where="--name $name"; [ "$host" = 1 ] && where=--host
  how="--selection $selection"; [ -n "$auto" ] && how="--auto $auto"
  echo "# $(basename "$0") $where --np $ranks --rounds $rounds --bench $benches -m $sizes -i $iterations -x $warmup $how"
  if [ "$host" = 1 ]; then
    echo "# this machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), mpiexec -bind-to core -n $ranks"
  else
    bash "$testbed" status --name "$name" | sed -n 1p
  fi
} >"$out/commands.txt"

# One OSU run; its data lines (size, average latency) as CSV rows.
# Variant mpich (no library), collbench (the library, timed) or count (the
# library with COLLBENCH_REPORT=1, untimed: rank 0's counters at MPI_Finalize
# say which algorithm ran per size and which calls fell back). The counters
# read the clock twice per call, which a sub-microsecond call on this machine
# shows, so the timed rounds run without them.
run_one() {  # bench variant round
  local b=$1 v=$2 r=$3 log=$out/logs/$1-$2-round$3.log env=() type=()
  local kv vars=()
  case $v in
    collbench) vars=("LD_PRELOAD=$pmpi" "${library_env[@]}") ;;
    count) vars=("LD_PRELOAD=$pmpi" "${library_env[@]}" COLLBENCH_REPORT=1) ;;
  esac
  for kv in "${vars[@]}"; do
    if [ "$host" = 1 ]; then env+=(-genv "${kv%%=*}" "${kv#*=}"); else env+=(--env "$kv"); fi
  done
  # Reductions in fp32 (collbench's PMPI library reduces MPI_FLOAT; OSU's
  # default MPI_CHAR it leaves to MPI); data movement needs no type.
  case $b in osu_allreduce|osu_reduce_scatter) type=(-T mpi_float) ;; esac
  local launch=(bash "$testbed" exec --name "$name" "${np_flag[@]}" "${env[@]}" --)
  [ "$host" = 1 ] && launch=(mpiexec -bind-to core -n "$ranks" "${env[@]}")
  "${launch[@]}" "$osu/$b" -m "$sizes" -i "$iterations" -x "$warmup" "${type[@]}" >"$log" 2>&1 ||
    { echo "app_compare: $b ($v, round $r) failed; its output: $log" >&2; tail -5 "$log" >&2; exit 1; }
  [ "$v" = count ] || awk -v r="$r" -v v="$v" '$1 ~ /^[0-9]+$/ && NF >= 2 { print r "," v "," $1 "," $2 }' "$log" \
    >>"$out/rounds-$b.csv"
  [ "$v" != count ] || awk -v r="$r" '
    /^# collective +algorithm/ { t = "alg"; next }
    /^# calls that went to the MPI library/ { t = "fb"; next }
    !/^  [a-z_]+ / { t = ""; next }  # the table rows are indented by two
    t == "alg" && NF >= 7 { print r "," $1 "," $2 "," $3 " " $4 "," $5 }
    t == "fb" && NF >= 5 {
      reason = $2; for (i = 3; i <= NF - 4; i++) reason = reason " " $i
      print r "," $1 ",fallback: " reason ",," $(NF - 3) }' "$log" >>"$out/calls-$b.csv"
}

for b in "${bench_list[@]}"; do
  echo "round,variant,bytes,time_us" >"$out/rounds-$b.csv"
  echo "round,collective,ran,size,calls" >"$out/calls-$b.csv"
done
for b in "${bench_list[@]}"; do
  echo "app_compare: counting run, $b, collbench with COLLBENCH_REPORT=1 (untimed)" >&2
  run_one "$b" count 0
done
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order=(mpich collbench); else order=(collbench mpich); fi
  for b in "${bench_list[@]}"; do
    for v in "${order[@]}"; do
      echo "app_compare: round $r/$rounds, $b, $v" >&2
      run_one "$b" "$v" "$r"
    done
  done
done

: >"$out/summary.txt"
for b in "${bench_list[@]}"; do
  { echo "## $b, p = $ranks"; "$collbench" compare-rounds "$out/rounds-$b.csv" --base mpich \
      --new collbench --csv "$out/ratios-$b.csv"
    echo "# with the library, its untimed counting run (rank 0's COLLBENCH_REPORT; size = S, the library's size):"
    awk -F, 'NR > 1 && $1 == 0 { printf "#   %s %s: %s (%s calls)\n", $2, $4, $3, $5 }' \
      "$out/calls-$b.csv" | sort -s -k3,3n
    grep -q ',fallback: ' "$out/calls-$b.csv" || echo "#   no call fell back to the MPI library"
    echo; } >>"$out/summary.txt"
done
{
  echo "bench,ranks,$(head -1 "$out/ratios-${bench_list[0]}.csv")"
  for b in "${bench_list[@]}"; do tail -n +2 "$out/ratios-$b.csv" | sed "s/^/$b,$ranks,/"; done
} >"$out/app_compare.csv"
cat "$out/summary.txt"
