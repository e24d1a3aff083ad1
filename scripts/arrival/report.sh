#!/usr/bin/env bash
# The report of stragglers validation directories (validate.sh's OUT,
# docs/stragglers.md): per DIR, `collbench arrival-check` into DIR/check/
# (with every term DIR/calibration.csv measured), then DIR/report.md and
# DIR/plots/arrival.png (scripts/report_arrival_validation.py). Measures
# nothing; rerunning it regenerates the same files.
#
#   bash scripts/arrival/report.sh DIR [DIR...]
set -Eeuo pipefail
cd "$(dirname "$0")/../.."

die() { echo "arrival-report: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: report.sh DIR [DIR...] (a validate.sh output directory)"
collbench=${CB_BUILD_DIR:-build}/harness/collbench
[ -x "$collbench" ] || die "$collbench is not built"
# Every directory is checked before any is written, so a bad one leaves the rest untouched.
for d in "$@"; do
  [ -d "$d" ] || die "'$d' is not a directory"
  for f in arrival.csv calibration.csv; do
    [ -s "$d/$f" ] || die "'$d' has no $f: not a validate.sh output directory"
  done
done
for d in "$@"; do
  "$collbench" arrival-check "$d/arrival.csv" --params "$d/calibration.csv" --all-terms \
    --out "$d/check" >"$d/check.txt"
  /usr/bin/python3 scripts/report_arrival_validation.py "$d"
done
