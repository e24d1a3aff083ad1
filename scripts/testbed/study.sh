#!/usr/bin/env bash
# The testbed stage of scripts/study.sh: for each network setting, bring up a
# testbed (scripts/testbed.sh), calibrate, sweep every collective and
# algorithm plus MPI's own, fit, tear down; then report.py compares what was
# recovered with what was configured.
#
#   bash scripts/testbed/study.sh OUTDIR [--mode quick|default|full] [--quiet]
#   bash scripts/testbed/study.sh OUTDIR [--mode M] --outputs   the files a finished
#                                             study leaves, one a line
#   bash scripts/testbed/study.sh --check     exit 0 when the testbed can run here,
#                                             else print why not and exit 3
#
# Needs root and network namespaces; otherwise prints why it skipped and
# exits 0. Finished settings (OUTDIR/<setting>/fit/fit.csv) are kept and
# skipped on a rerun; an interrupted sweep resumes.
#
# default (scripts/study.sh's default): 500 us / 100 Mbit/s on 6 hosts,
# p = 2, 3, 4, 6, sizes 8 B..1 MiB (16 B..1 MiB x4, then 8 B) with 5 timed
# iterations + 1 warm-up, calibration to 256 KiB. About 8 minutes.
# full (--full): that setting and 2 ms / 200 Mbit/s on 8 hosts, p = 2, 3, 4,
# 6, 8, then 4 and 16 MiB with 2 timed iterations and no warm-up (one
# iteration of every algorithm at 16 MiB is ~400 s of link time at 100
# Mbit/s; each pass also verifies once), calibration to 1 MiB, and a
# refinement pass that measures the x4 grid's midpoints (32 B..2 MiB) inside
# each measured crossover's CI interval, so crossovers are placed between
# sizes 2x apart (`collbench refine-sizes`). About 95 minutes.
# quick: 500 us / 100 Mbit/s on 4 hosts, p = 2, 4, 16 B..256 KiB x16.
# Durations per pass go to OUTDIR/<setting>/durations.txt.
# Every sweep starts its iterations with --start window (agreed start times on
# synchronized clocks): after a barrier one rank leaves up to a latency after
# the other, which made a 1-round collective at p = 2 time as two latencies
# and the fitted alpha miss by ~30% (docs/testbed.md, "Start of an
# iteration").
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
collbench=${CB_BUILD_DIR:-build}/harness/collbench

check_only=0
[ "${1:-}" = --check ] && check_only=1
out=${1:?usage: study.sh OUTDIR [--mode quick|default|full] [--quiet] | study.sh --check}
shift
mode=default; quiet=(); list_outputs=0
while [ $# -gt 0 ]; do
  case $1 in
    --mode) [ $# -ge 2 ] || { echo "testbed study: --mode needs quick, default or full" >&2; exit 2; }
      case $2 in quick|default|full) mode=$2 ;;
        *) echo "testbed study: --mode '$2' is not one of: quick, default, full" >&2; exit 2 ;; esac
      shift 2 ;;
    --quick) mode=quick; shift ;;
    --quiet) quiet=(--quiet); shift ;;
    --outputs) list_outputs=1; shift ;;
    *) echo "testbed study: unknown argument '$1' (valid: --mode quick|default|full, --quiet, --outputs)" >&2; exit 2 ;;
  esac
done
case $mode in
  quick)
    settings=("500us-100Mbit 500us 100Mbit")
    ranks=2,4; hosts=4; cal_max=256K
    passes=("-b 16 -e 256K -f 16 -n 3 -w 1")
    refine=() ;;
  default)
    settings=("500us-100Mbit 500us 100Mbit")
    ranks=2,3,4,6; hosts=6; cal_max=256K
    passes=("-b 16 -e 1M -f 4 -n 5 -w 1" "-b 8 -e 8 -n 5 -w 1")
    refine=() ;;
  full)
    # The issue's setting, and a second one with 4x the latency and 2x the
    # bandwidth (crossovers move 8x in size), swept and judged the same way.
    settings=("500us-100Mbit 500us 100Mbit" "2ms-200Mbit 2ms 200Mbit")
    ranks=2,3,4,6,8; hosts=8; cal_max=1M
    # Small and mid sizes need the warm-up (UCX connects lazily) and 5 samples
    # (the CI of the median); at 4 and 16 MiB a sample takes seconds, the
    # connection setup is lost in it, and 2 samples bound the spread.
    passes=("-b 16 -e 1M -f 4 -n 5 -w 1" "-b 8 -e 8 -n 5 -w 1" "-b 4M -e 16M -f 4 -n 2 -w 0")
    refine=(-n 5 -w 1) ;;
esac
# Progress for scripts/study.sh (its filter reads "@part I N"): per setting,
# the probe, the calibration, each pass and the rest, weighted as the
# committed run's durations.txt spent them (the sweep passes dominate).
parts_per_setting=$((3 + ${#passes[@]}))
part() { [ -n "${STUDY_PROGRESS:-}" ] && echo "@part $(( setting_no * parts_per_setting + $1 )) $(( ${#settings[@]} * parts_per_setting ))" >&2 || true; }

# --outputs: the files a finished study of OUTDIR leaves in this mode, one a
# line (scripts/study.sh checks them before it calls the stage done).
if [ "$list_outputs" = 1 ]; then
  for s in "${settings[@]}"; do
    read -r label _ <<<"$s"
    echo "$out/$label/fit/fit.csv"
    "$collbench" help recommend >/dev/null 2>&1 && echo "$out/$label/recommendations.csv"
  done
  echo "$out/report.md"
  exit 0
fi

log() { echo "study: testbed: $*" >&2; }
# Why the testbed cannot run here, or nothing.
why_not() {
  [ "$(id -u)" -eq 0 ] || { echo "needs root (network namespaces, tc, iptables); run study.sh as root"; return; }
  local probe_ns=cbstudy-probe$$
  ip netns add "$probe_ns" 2>/dev/null || { echo "cannot create network namespaces here (ip netns add failed)"; return; }
  ip netns del "$probe_ns"
  local tool
  for tool in tc ethtool ping; do
    command -v $tool >/dev/null || { echo "'$tool' is missing (bash scripts/install-deps.sh)"; return; }
  done
  [ -x "${CB_BUILD_DIR:-build}/scripts/testbed/cb-nfq-delay" ] || command -v iptables-legacy >/dev/null ||
    echo "no delay mechanism: build/scripts/testbed/cb-nfq-delay and iptables-legacy are missing"
}
why=$(why_not)
if [ "$check_only" = 1 ]; then
  [ -z "$why" ] && exit 0
  echo "$why"; exit 3
fi
[ -z "$why" ] || { log "skipped: $why"; exit 0; }

tb=(bash scripts/testbed.sh)
name=cbstudy
# shellcheck source=scripts/study/analyse.sh
. scripts/study/analyse.sh
trap '"${tb[@]}" down --name $name >/dev/null 2>&1 || true' EXIT

mkdir -p "$out"
setting_no=0
for s in "${settings[@]}"; do
  read -r label lat bw <<<"$s"
  d=$out/$label
  [ -s "$d/fit/fit.csv" ] && { log "$label: already done"; setting_no=$((setting_no + 1)); continue; }
  mkdir -p "$d"
  cmds=$d/commands.txt
  : >"$cmds"
  # Each step is run as recorded in commands.txt, the report's source of truth.
  step() { echo "$*" >>"$cmds"; "$@"; }
  started=$(date +%s)

  # The stack's own per-message overhead: the same ping-pong with the delay at
  # 0 (same bandwidth: serializing a small frame is part of it).
  part 0
  if [ ! -s "$d/probe.csv" ]; then
    log "$label: stack overhead probe (2 hosts, delay 0)"
    step "${tb[@]}" up --name $name --hosts 2 --latency 0us --bandwidth "$bw"
    step "${tb[@]}" run --name $name -- calibrate -e "$cal_max" --out "$d/probe.csv" >"$d/probe.txt"
    step "${tb[@]}" down --name $name
  fi

  part 1
  log "$label: up ($hosts hosts)"
  step "${tb[@]}" up --name $name --hosts $hosts --latency "$lat" --bandwidth "$bw"
  printf 'latency_us=%s\nbandwidth_bps=%s\nhosts=%s\ncores=%s\n' \
    "$(sed -n 's/^latency_us=//p' /run/collbench-testbed/$name/config)" \
    "$(sed -n 's/^bandwidth_bps=//p' /run/collbench-testbed/$name/config)" \
    "$hosts" "$(nproc)" >"$d/setting.txt"
  if [ ! -s "$d/calibration.csv" ]; then
    # On every host: the ping-pong still runs between hosts 1 and 2; the
    # fan-in (term (h), incast) needs 3 or more ranks sending to one, and the
    # fan-out (term (j), send buffering) one rank sending to two.
    log "$label: calibrate (ping-pong between hosts 1 and 2, fan-in and fan-out on all $hosts)"
    step "${tb[@]}" run --name $name -- calibrate -e "$cal_max" \
      --out "$d/calibration.csv" >"$d/calibration.txt"
  fi
  : >"$d/durations.txt"
  pass_no=0
  for pass in "${passes[@]}"; do
    part $((2 + pass_no)); pass_no=$((pass_no + 1))
    read -r -a sweep <<<"$pass"
    # Every pass adds to the same CSV; an interrupted one resumes.
    resume=(); [ -e "$d/sweep.csv" ] || [ -e "$d/sweep.csv.partial" ] && resume=(--resume)
    log "$label: sweep p = $ranks, every algorithm + mpi, ${sweep[*]}"
    t0=$(date +%s)
    # --mode-probe off: term (i)'s probe is for cores sharing caches; over
    # these links its 256 KiB exchanges would cost ~1 s per configuration.
    step "${tb[@]}" run --name $name -- run --coll all --algo all --ranks "$ranks" "${sweep[@]}" \
      -d float -o sum --placement out --start window --mode-probe off --csv "$d/sweep.csv" \
      "${resume[@]}" "${quiet[@]}" >>"$d/sweep.txt"
    echo "sweep ${sweep[*]}: $(( $(date +%s) - t0 )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" \
      >>"$d/durations.txt"
  done
  # mpiexec's exit status alone proves nothing (MPICH 4.0.2 returns 0 at
  # random after a signal): the sweep is whole only without a .partial.
  [ -s "$d/sweep.csv" ] && [ ! -e "$d/sweep.csv.partial" ] ||
    { log "$label: the sweep stopped before its end ($d/sweep.csv.partial is left)"; exit 1; }
  part $((2 + ${#passes[@]}))
  if [ ${#refine[@]} -gt 0 ]; then
    # Refinement: a crossover on the x4 grid is interpolated between sizes 4x
    # apart, as coarse as the 2x it is judged by. Fit the grid (fit-grid/,
    # kept to compare; grid-rows.txt says which rows, so --refit fits the
    # same), then measure every algorithm again at the midpoints inside each
    # measured crossover's CI interval, with pass 1's samples
    # (`collbench refine-sizes`, models/refine_sizes.hpp). The list is made
    # once, so a rerun resumes it.
    if [ ! -e "$d/refine.txt" ]; then
      wc -l <"$d/sweep.csv" >"$d/grid-rows.txt"
      analyse_testbed_setting_grid "$d" step
      echo "$collbench refine-sizes $d/sweep.csv $d/fit-grid >$d/refine.txt" >>"$cmds"
      "$collbench" refine-sizes "$d/sweep.csv" "$d/fit-grid" >"$d/refine.txt.partial"
      mv "$d/refine.txt.partial" "$d/refine.txt"
    fi
    t0=$(date +%s)
    while read -r coll p lo hi; do
      log "$label: refine $coll p = $p, midpoints $lo..$hi B"
      step "${tb[@]}" run --name $name -- run --coll "$coll" --algo all --ranks "$p" \
        -b "$lo" -e "$hi" -f 4 "${refine[@]}" -d float -o sum --placement out --start window \
        --mode-probe off --csv "$d/sweep.csv" --resume "${quiet[@]}" >>"$d/sweep.txt" </dev/null
      [ ! -e "$d/sweep.csv.partial" ] ||
        { log "$label: the refinement of $coll p = $p stopped before its end"; exit 1; }
    done <"$d/refine.txt"
    echo "refine ($(wc -l <"$d/refine.txt") collective x p, ${refine[*]}): $(( $(date +%s) - t0 )) s," \
      "load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$d/durations.txt"
  fi
  step "${tb[@]}" down --name $name
  analyse_testbed_setting "$d" step
  echo "setting (probe, calibration, sweep, fit): $(( $(date +%s) - started )) s" >>"$d/durations.txt"
  log "$label: done in $(( $(date +%s) - started )) s"
  setting_no=$((setting_no + 1))
done

testbed_report "$out"
