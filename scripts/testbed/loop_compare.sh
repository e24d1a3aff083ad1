#!/usr/bin/env bash
# What an application's loop sees versus what collbench's rows say, for one
# call: stock osu_allreduce (a loop of MPI_Allreduce, a barrier after each
# call, each rank's mean call time averaged over ranks) and
# `collbench run --algo mpi` (MPICH's own MPI_Allreduce) under several
# --start and --wait methods, in interleaved rounds on the testbed. The
# per-size ratio OSU time / collbench time with its spread comes from
# `collbench compare-rounds`; this script only runs programs and reformats.
#
#   scripts/testbed/loop_compare.sh --out DIR [--name NAME] [--np K] [--rounds R]
#       [--osu DIR] [-m MIN:MAX] [-i ITERATIONS] [-x WARMUP]
#       [--variants START:WAIT,...]   (default back-to-back:spin,barrier:spin,back-to-back:sleep)
#
# The testbed must be up (scripts/testbed.sh up --name NAME ...). collbench's
# time is its rows' time_mean_us (a mean, as OSU's "Avg Latency"). WAIT spin
# runs with --timeout 0, so collbench calls MPICH's blocking MPI_Allreduce as
# OSU does (a watchdog needs the nonblocking form, and MPICH picks its
# algorithms for MPI_Iallreduce separately); other waits poll MPI_Iallreduce.
# Writes
# DIR/rounds.csv (round,variant,bytes,time_us), DIR/ratios-VARIANT.csv,
# DIR/summary.txt and every run's output under DIR/logs. Bad arguments: one
# line, exit 2.
set -Eeuo pipefail

root_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${CB_BUILD_DIR:-$root_dir/build}
# shellcheck source=scripts/testbed/compare_args.sh
. "$root_dir/scripts/testbed/compare_args.sh"

name=cbtb; np=""; rounds=3; osu=${OSU_DIR:-$build_dir/transports/mpi/pmpi}
sizes=4:4; iterations=50; warmup=5; out=""
variants=back-to-back:spin,barrier:spin,back-to-back:sleep
while [ $# -gt 0 ]; do
  case $1 in
    --name) need "$1" $#; name=$2; shift 2 ;;
    --np) need "$1" $#; int_in --np "$2" 2 64; np=$2; shift 2 ;;
    --rounds) need "$1" $#; int_in --rounds "$2" 1 100; rounds=$2; shift 2 ;;
    --osu) need "$1" $#; osu=$2; shift 2 ;;
    --variants) need "$1" $#; variants=$2; shift 2 ;;
    --out) need "$1" $#; out=$2; shift 2 ;;
    -m) need "$1" $#; [[ $2 =~ ^[0-9]{1,10}:[0-9]{1,10}$ ]] || die_usage "-m '$2' is not MIN:MAX (bytes)"
      sizes=$2; shift 2 ;;
    -i) need "$1" $#; int_in -i "$2" 1 100000; iterations=$2; shift 2 ;;
    -x) need "$1" $#; int_in -x "$2" 0 100000; warmup=$2; shift 2 ;;
    *) die_usage "unknown argument '$1' (see the top of $0)" ;;
  esac
done
[ -n "$out" ] || die_usage "--out DIR is required"
[ ! -e "$out" ] || die_usage "--out '$out' exists (give a new directory)"
min=${sizes%%:*}; max=${sizes##*:}
(( 10#$min >= 4 && 10#$min <= 10#$max )) ||
  die_usage "-m '$sizes' needs 4 <= MIN <= MAX (bytes; fp32 elements are 4 B)"
IFS=, read -r -a variant_list <<<"$variants"
for v in "${variant_list[@]}"; do
  [[ $v =~ ^(barrier|window|back-to-back):(spin|yield|sleep|auto)$ ]] ||
    die_usage "--variants item '$v' is not START:WAIT (START: barrier, window, back-to-back; WAIT: spin, yield, sleep, auto)"
done
[ -x "$osu/osu_allreduce" ] || die_usage "--osu: '$osu/osu_allreduce' is not an executable (build OSU, or give --osu DIR)"
collbench=$build_dir/harness/collbench
[ -x "$collbench" ] || die_usage "$collbench is not built (bash scripts/build.sh)"
testbed=$root_dir/scripts/testbed.sh
bash "$testbed" status --name "$name" >/dev/null || die_usage "testbed '$name' is not up"

mkdir -p "$out/logs"
np_flag=(); [ -z "$np" ] || np_flag=(--np "$np")
ranks=$(testbed_ranks "$testbed" "$name" "$np")
{
  echo "# $(basename "$0") --name $name --np $ranks --rounds $rounds -m $sizes -i $iterations -x $warmup --variants $variants"
  bash "$testbed" status --name "$name" | sed -n 1p
} >"$out/commands.txt"
echo "round,variant,bytes,time_us" >"$out/rounds.csv"

run_osu() {  # round
  local log=$out/logs/osu-round$1.log
  bash "$testbed" exec --name "$name" "${np_flag[@]}" -- "$osu/osu_allreduce" -T mpi_float \
    -m "$sizes" -i "$iterations" -x "$warmup" >"$log" 2>&1 ||
    { echo "loop_compare: osu_allreduce (round $1) failed; its output: $log" >&2; exit 1; }
  awk -v r="$1" '$1 ~ /^[0-9]+$/ && NF >= 2 { print r ",osu," $1 "," $2 }' "$log" >>"$out/rounds.csv"
}

run_collbench() {  # round start wait
  local tag=$2-$3 log=$out/logs/$2-$3-round$1.log csv=$out/logs/$2-$3-round$1.csv timeout=()
  [ "$3" != spin ] || timeout=(--timeout 0)
  bash "$testbed" run --name "$name" "${np_flag[@]}" -- run --coll allreduce --algo mpi \
    --placement out -b "$min" -e "$max" -f 2 -n "$iterations" -w "$warmup" --start "$2" --wait "$3" \
    "${timeout[@]}" --mode-probe off --quiet --csv "$csv" >"$log" 2>&1 ||
    { echo "loop_compare: collbench $tag (round $1) failed; its output: $log" >&2; exit 1; }
  awk -F, -v r="$1" -v v="$tag" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { print r "," v "," $c["bytes"] "," $c["time_mean_us"] }' "$csv" >>"$out/rounds.csv"
}

# Round r starts with OSU on odd rounds and ends with it on even ones, so a
# drift of the machine reaches every variant.
for r in $(seq 1 "$rounds"); do
  [ $((r % 2)) = 0 ] || run_osu "$r"
  for v in "${variant_list[@]}"; do
    echo "loop_compare: round $r/$rounds, collbench $v" >&2
    run_collbench "$r" "${v%%:*}" "${v##*:}"
  done
  [ $((r % 2)) = 1 ] || run_osu "$r"
done

: >"$out/summary.txt"
for v in "${variant_list[@]}"; do
  tag=${v/:/-}
  { echo "## OSU's loop / collbench --start ${v%%:*} --wait ${v##*:}, p = $ranks"
    "$collbench" compare-rounds "$out/rounds.csv" --base osu --new "$tag" \
      --csv "$out/ratios-$tag.csv"; echo; } >>"$out/summary.txt"
done
cat "$out/summary.txt"
