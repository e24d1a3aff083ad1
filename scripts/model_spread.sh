#!/usr/bin/env bash
# Repeat the study's calibrate + sweep + fit for one transport N times and
# tabulate how far the calibrated model's accuracy moves between runs.
#
#   bash scripts/model_spread.sh OUT_DIR [--transport mpi|ipc] [--pairs N] [--terms LEVEL]
#                                [--order interleaved|size|algorithm]
#
# Why: on a shared VM one calibrate + sweep pair can land in a different
# latency mode than the next (models/README.md), so a single accuracy figure
# neither meets nor refutes a target. The summary (model_spread_summary.py)
# shows the asked level (default +abcdefg), the same with term (i), the mode
# probe, and each pair's mode as its probes show it. Each pair is the study's own commands
# (scripts/study.sh steps 1, 2/3 and 4 for that transport); the summary gives
# every pair's figures and their median and range, so a claim rests on the
# spread rather than on one run. Needs a built ./build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: bash scripts/model_spread.sh OUT_DIR [--transport mpi|ipc] [--pairs N] [--terms LEVEL] [--order interleaved|size|algorithm]" >&2; exit 2; }
[ $# -ge 1 ] || usage
out=$1; shift
transport=ipc; pairs=5; level=calibration+abcdefg; order=interleaved
while [ $# -gt 0 ]; do
  case $1 in
    --transport) [ $# -ge 2 ] || usage; transport=$2; shift 2 ;;
    --pairs) [ $# -ge 2 ] || usage; pairs=$2; shift 2 ;;
    --terms) [ $# -ge 2 ] || usage; level=$2; shift 2 ;;
    --order) [ $# -ge 2 ] || usage; order=$2; shift 2 ;;
    *) echo "model_spread.sh: unknown argument '$1' (accepted: --transport, --pairs, --terms, --order)" >&2; exit 2 ;;
  esac
done
case $transport in mpi|ipc) ;; *) echo "model_spread.sh: --transport '$transport' is not one of: mpi, ipc" >&2; exit 2 ;; esac
case $order in interleaved|size|algorithm) ;; *) echo "model_spread.sh: --order '$order' is not one of: interleaved, size, algorithm" >&2; exit 2 ;; esac
[[ $pairs =~ ^[1-9][0-9]?$ ]] || { echo "model_spread.sh: --pairs '$pairs' is not a count 1..99" >&2; exit 2; }
collbench=./build/harness/collbench
[ -x "$collbench" ] || { echo "model_spread.sh: $collbench not built (run bash scripts/build.sh)" >&2; exit 2; }
[ -e "$out" ] && { echo "model_spread.sh: $out exists; give a new directory" >&2; exit 2; }
mkdir -p "$out"

mem=(); [ "$transport" = ipc ] && mem=(--mem host)
for i in $(seq 1 "$pairs"); do
  d="$out/pair-$i"; mkdir -p "$d"
  echo "[$(date -u +%H:%M:%S)] pair $i/$pairs: calibrate, sweep, fit ($transport, load $(cut -d' ' -f1 /proc/loadavg))" >&2
  cut -d' ' -f1-3 /proc/loadavg >"$d/load-before.txt"
  mpiexec -bind-to core -n 2 "$collbench" calibrate --transport "$transport" --out "$d/calibration.csv" >"$d/calibration.txt"
  mpiexec -bind-to core -n 2 "$collbench" run --transport "$transport" "${mem[@]}" --coll all --algo all \
    -b 8 -e 64M -f 4 --time-budget 0.2 -d float -o sum --placement out --ranks 2 --order "$order" \
    --csv "$d/sweep.csv" --quiet >"$d/sweep.txt"
  "$collbench" fit "$d/sweep.csv" --calibration "$d/calibration.csv" --out "$d/fit" >"$d/fit.txt"
  cut -d' ' -f1-3 /proc/loadavg >"$d/load-after.txt"
done

/usr/bin/python3 scripts/model_spread_summary.py "$out" "$pairs" "$level" >"$out/summary.md"
cat "$out/summary.md"
