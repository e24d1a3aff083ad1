#!/usr/bin/env bash
# α with --start barrier vs window on a testbed named sy (issue 10 follow-up).
#   bash results/testbed-start-2026-11-23/measure.sh OUTDIR RANKS LATENCY BANDWIDTH [START...]
# Runs, on a testbed named sy: a delay-0 probe (the stack overhead), an 8-host
# calibration, then one sweep per START (barrier, window, ...) in that order,
# 8 B..32 KiB, and collbench fit on each. log.txt has the load and whether the
# testbed study (scripts/testbed/study.sh) ran alongside.
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
out=$1 ranks=$2 lat=$3 bw=$4; shift 4
order=("$@"); [ ${#order[@]} -gt 0 ] || order=(barrier window)
mkdir -p "$out"
tb=(bash scripts/testbed.sh)
trap '"${tb[@]}" down --name sy >/dev/null 2>&1 || true' EXIT
log() { echo "$(date -u +%T) $* | load $(cut -d' ' -f1-3 /proc/loadavg) | study running: $(pgrep -f testbed/study.sh >/dev/null && echo yes || echo no)" | tee -a "$out/log.txt"; }
cmd() { echo "$*" >>"$out/commands.txt"; "$@"; }
if [ ! -s "$out/probe.csv" ]; then
  log "probe up"
  cmd "${tb[@]}" up --name sy --hosts 2 --latency 0us --bandwidth "$bw"
  cmd "${tb[@]}" run --name sy -- calibrate -e 1M --out "$out/probe.csv" >"$out/probe.txt"
  cmd "${tb[@]}" down --name sy
  log "probe done"
fi
cmd "${tb[@]}" up --name sy --hosts 8 --latency "$lat" --bandwidth "$bw"
if [ ! -s "$out/calibration.csv" ]; then
  cmd "${tb[@]}" run --name sy --np 2 -- calibrate -e 1M --out "$out/calibration.csv" >"$out/calibration.txt"
  log "calibration done"
fi
i=0
for start in "${order[@]}"; do
  i=$((i+1))
  log "sweep $i $start start"
  t0=$(date +%s)
  cmd "${tb[@]}" run --name sy -- run --coll all --algo all --ranks "$ranks" -b 8 -e 64K -f 4 -n 5 -w 1 \
    -d float -o sum --placement out --start "$start" --quiet --csv "$out/$i-$start.csv" >"$out/$i-$start.txt"
  log "sweep $i $start done in $(( $(date +%s) - t0 )) s"
done
cmd "${tb[@]}" down --name sy
for f in "$out"/*-*.csv; do
  b=$(basename "$f" .csv)
  cmd build/harness/collbench fit "$f" --calibration "$out/calibration.csv" --out "$out/fit-$b" >"$out/fit-$b.txt"
done
log "all done"
