#!/usr/bin/env bash
# The testbed stage of scripts/study.sh: for each network setting, bring up a
# testbed (scripts/testbed.sh), calibrate, sweep every collective and
# algorithm plus MPI's own at p = 2, 3, 4, 6, 8, fit, tear down; then
# report.py compares what was recovered with what was configured.
#
#   bash scripts/testbed/study.sh OUTDIR [--quick] [--quiet]
#
# Needs root and network namespaces; otherwise prints why it skipped and
# exits 0. Finished settings (OUTDIR/<setting>/fit/fit.csv) are kept and
# skipped on a rerun; an interrupted sweep resumes.
#
# Sizes 8 B..16 MiB in three passes over one CSV (--resume adds to it):
# 16 B..1 MiB (x4) and 8 B with 5 timed iterations + 1 warm-up, then 4 and
# 16 MiB with 2 timed iterations and no warm-up (one iteration of every
# algorithm at 16 MiB is ~400 s of link time at 100 Mbit/s; each pass also
# verifies once). Then a refinement pass measures the x4 grid's midpoints
# (32 B..2 MiB) inside each measured crossover's CI interval, so crossovers
# are placed between sizes 2x apart (refine_sizes.py). Durations per pass go
# to OUTDIR/<setting>/durations.txt.
# Every sweep starts its iterations with --start window (agreed start times on
# synchronized clocks): after a barrier one rank leaves up to a latency after
# the other, which made a 1-round collective at p = 2 time as two latencies
# and the fitted alpha miss by ~30% (scripts/testbed/README.md, "Start of an
# iteration").
set -Eeuo pipefail
cd "$(dirname "$0")/../.."

out=${1:?usage: study.sh OUTDIR [--quick] [--quiet]}
shift
quick=0; quiet=()
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    --quiet) quiet=(--quiet) ;;
    *) echo "testbed study: unknown argument '$a' (valid: --quick, --quiet)" >&2; exit 2 ;;
  esac
done
log() { echo "study: testbed: $*" >&2; }
skip() { log "skipped: $*"; exit 0; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, tc, iptables); run study.sh as root"
probe_ns=cbstudy-probe
ip netns add "$probe_ns" 2>/dev/null || skip "cannot create network namespaces here (ip netns add failed)"
ip netns del "$probe_ns"
for tool in tc ethtool ping; do
  command -v $tool >/dev/null || skip "'$tool' is missing (bash scripts/install-deps.sh)"
done
[ -x build/scripts/testbed/cb-nfq-delay ] || command -v iptables-legacy >/dev/null ||
  skip "no delay mechanism: build/scripts/testbed/cb-nfq-delay and iptables-legacy are missing"

tb=(bash scripts/testbed.sh)
name=cbstudy
collbench=build/harness/collbench
trap '"${tb[@]}" down --name $name >/dev/null 2>&1 || true' EXIT

if [ "$quick" = 1 ]; then
  settings=("500us-100Mbit 500us 100Mbit")
  ranks=2,4; hosts=4
  passes=("-b 16 -e 256K -f 16 -n 3 -w 1")
  refine=(-n 3 -w 1)
else
  # The issue's setting, and a second one with 4x the latency and 2x the
  # bandwidth (crossovers move 8x in size), swept and judged the same way.
  settings=("500us-100Mbit 500us 100Mbit" "2ms-200Mbit 2ms 200Mbit")
  ranks=2,3,4,6,8; hosts=8
  # Small and mid sizes need the warm-up (UCX connects lazily) and 5 samples
  # (the CI of the median); at 4 and 16 MiB a sample takes seconds, the
  # connection setup is lost in it, and 2 samples bound the spread.
  passes=("-b 16 -e 1M -f 4 -n 5 -w 1" "-b 8 -e 8 -n 5 -w 1" "-b 4M -e 16M -f 4 -n 2 -w 0")
  refine=(-n 5 -w 1)
fi

mkdir -p "$out"
for s in "${settings[@]}"; do
  read -r label lat bw <<<"$s"
  d=$out/$label
  [ -s "$d/fit/fit.csv" ] && { log "$label: already done"; continue; }
  mkdir -p "$d"
  cmds=$d/commands.txt
  : >"$cmds"
  # Each step is run as recorded in commands.txt, the report's source of truth.
  step() { echo "$*" >>"$cmds"; "$@"; }
  started=$(date +%s)

  # The stack's own per-message overhead: the same ping-pong with the delay at
  # 0 (same bandwidth: serializing a small frame is part of it).
  if [ ! -s "$d/probe.csv" ]; then
    log "$label: stack overhead probe (2 hosts, delay 0)"
    step "${tb[@]}" up --name $name --hosts 2 --latency 0us --bandwidth "$bw"
    step "${tb[@]}" run --name $name -- calibrate -e 1M --out "$d/probe.csv" >"$d/probe.txt"
    step "${tb[@]}" down --name $name
  fi

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
    step "${tb[@]}" run --name $name -- calibrate -e 1M \
      --out "$d/calibration.csv" >"$d/calibration.txt"
  fi
  : >"$d/durations.txt"
  for pass in "${passes[@]}"; do
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
  # Refinement: a crossover on the x4 grid is interpolated between sizes 4x
  # apart, as coarse as the 2x it is judged by. Fit the grid (fit-grid/, kept
  # to compare), then measure every algorithm again at the midpoints inside
  # each measured crossover's CI interval, with pass 1's samples
  # (scripts/testbed/refine_sizes.py). The list is made once, so a rerun
  # resumes it.
  if [ ! -e "$d/refine.txt" ]; then
    step "$collbench" fit "$d/sweep.csv" --calibration "$d/calibration.csv" --out "$d/fit-grid" \
      >"$d/fit-grid.txt"
    echo "/usr/bin/python3 scripts/testbed/refine_sizes.py $d $d/fit-grid >$d/refine.txt" >>"$cmds"
    /usr/bin/python3 scripts/testbed/refine_sizes.py "$d" "$d/fit-grid" >"$d/refine.txt.partial"
    mv "$d/refine.txt.partial" "$d/refine.txt"
  fi
  t0=$(date +%s)
  while read -r coll p lo hi; do
    log "$label: refine $coll p = $p, midpoints $lo..$hi B"
    step "${tb[@]}" run --name $name -- run --coll "$coll" --algo all --ranks "$p" \
      -b "$lo" -e "$hi" -f 4 "${refine[@]}" -d float -o sum --placement out --start window \
      --mode-probe off --csv "$d/sweep.csv" --resume "${quiet[@]}" >>"$d/sweep.txt" </dev/null
  done <"$d/refine.txt"
  echo "refine ($(wc -l <"$d/refine.txt") collective x p, ${refine[*]}): $(( $(date +%s) - t0 )) s," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$d/durations.txt"
  step "${tb[@]}" down --name $name
  step "$collbench" fit "$d/sweep.csv" --calibration "$d/calibration.csv" --out "$d/fit" >"$d/fit.txt"
  echo "setting (probe, calibration, sweep, fit): $(( $(date +%s) - started )) s" >>"$d/durations.txt"
  log "$label: done in $(( $(date +%s) - started )) s"
done

/usr/bin/python3 scripts/testbed/report.py "$out" >&2
