#!/usr/bin/env bash
# README's main command: installs what is missing, builds, and runs a study
# into results/<host>-<date>/ (never overwriting an earlier run), then points
# results/latest at it. Stages, durations and modes: docs/study.md.
#
#   bash scripts/study.sh                 the default study (about 13 minutes on 2 idle
#                                         cores: host study, then one testbed setting as root)
#   bash scripts/study.sh --quick         a smoke version (about a minute; no testbed)
#   bash scripts/study.sh --full          the long validation (about 2 h 20 min: model spread,
#                                         both testbed settings to 16 MiB, refinement)
#   bash scripts/study.sh --resume DIR    finish an interrupted study in DIR
#   bash scripts/study.sh --refit DIR     regenerate fits, recommendations, plots and reports
#                                         from DIR's raw measurements (no measuring)
#
# Every stage runs in its own process group: the first INT, TERM or HUP stops
# it (the stage's group gets TERM), prints where the finished measurements are
# and the resume command, and exits 128 + signal. A stage counts as done only
# when the files it must write exist whole (no FILE.partial left): MPICH
# 4.0.2's mpiexec returns 0 at random after a signal, so its status alone
# proves nothing. results/latest moves only when every stage is done.
set -Eeuo pipefail
caller_dir=$PWD
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF'
usage: bash scripts/study.sh [--quick | --full] [--quiet] [--resume DIR]
       bash scripts/study.sh --refit DIR

Installs what is missing, builds, and measures into results/<host>-<date>/
(results/latest points at it once the study is complete): calibrate, measured
sweeps over MPI and IPC with repeats of the large sizes, calibrate again, fit,
simulated sweep and crossover map, recommendations, plots and report.md; as
root also the network testbed (DIR/testbed/). docs/study.md has the details.

  (default)      one testbed setting (500 us, 100 Mbit/s), p = 2..6, sizes to 1 MiB
  --quick        smoke version: smaller grids, no testbed (CI, demos)
  --full         the long validation: 4 model-spread pairs per transport, both
                 testbed settings, p = 2..8, sizes to 16 MiB, refinement pass
  --quiet        no per-configuration progress lines
  --resume DIR   finish an interrupted study in DIR (an interrupted study prints this)
  --refit DIR    regenerate DIR's fits, recommendations, plots and reports from its
                 raw measurements (byte-identical to what the study wrote)
  -h, --help     this text
EOF
}

bad_usage() { echo "study: $*" >&2; exit 2; }
# DIR as the study names its files: relative to the repository root when it
# lies inside it (the fit's model-report.md names its input by that path, so
# --refit must give the same one), with symbolic links (results/latest)
# resolved. Relative DIRs are taken from where the command was run.
study_dir() {
  local abs
  abs=$(cd "$caller_dir" && realpath -e -- "$1") || return 1
  realpath --relative-base="$PWD" -- "$abs"
}
resume=""; refit=""; mode=default; quiet=()
while [ $# -gt 0 ]; do
  case "$1" in
    --resume|--refit)
      [ $# -ge 2 ] || bad_usage "$1 needs a results directory"
      d=$(study_dir "$2" 2>/dev/null) && [ -d "$d" ] || bad_usage "$1: '$2' is not a directory"
      if [ "$1" = --resume ]; then resume=$d; else refit=$d; fi
      shift 2 ;;
    --quick|--full)
      [ "$mode" = default ] || [ "$mode" = "${1#--}" ] || bad_usage "--quick and --full exclude each other"
      mode=${1#--}; shift ;;
    --quiet) quiet=(--quiet); shift ;;
    -h|--help) usage; exit 0 ;;
    *) bad_usage "unknown argument '$1' (accepted: --quick, --full, --quiet, --resume DIR, --refit DIR)" ;;
  esac
done
[ -z "$refit" ] || { [ -z "$resume" ] && [ "$mode" = default ]; } ||
  bad_usage "--refit DIR measures nothing: it takes no --resume, --quick or --full"

# CB_BUILD_DIR: an existing build to use as it is (the tests' scratch trees);
# otherwise ./build, configured and brought up to date first.
if [ -n "${CB_BUILD_DIR:-}" ]; then
  build_dir=$CB_BUILD_DIR
else
  bash scripts/build.sh
  build_dir=$PWD/build
fi
collbench=$build_dir/harness/collbench
[ -x "$collbench" ] || bad_usage "$collbench is not built (bash scripts/build.sh)"
# shellcheck source=scripts/study/stages.sh
. scripts/study/stages.sh
# shellcheck source=scripts/study/analyse.sh
. scripts/study/analyse.sh

log() { progress_clear; echo "study: $*" >&2; }

if [ -n "$refit" ]; then
  refit_study "$refit"
  exit 0
fi

if [ -n "$resume" ]; then
  out=$resume
  # The mode is the interrupted study's, whatever this command says.
  mode=$(study_mode_of "$out")
else
  base="results/$(hostname -s)-$(date -u +%Y-%m-%d)"
  out="$base"; n=2
  while [ -e "$out" ]; do out="$base-$n"; n=$((n + 1)); done
  mkdir -p "$out"
  # The run's metadata: the mode sized its grids (scripts/study/analyse.sh).
  echo "mode=$mode" >"$out/study.txt"
fi

# Ranks: MPI timings with more ranks than cores measure the OS scheduler, not
# the algorithms, so the measured sweeps use the largest power of two that
# fits the usable cores (at least 2) and say why they stop there.
cores=$(nproc)
ranks=2
while [ $((ranks * 2)) -le "$cores" ]; do ranks=$((ranks * 2)); done
rank_list=2; r=4
while [ "$r" -le "$ranks" ]; do rank_list="$rank_list,$r"; r=$((r * 2)); done

# The grids of each mode. The default's sweeps are the full study's (they are
# minutes on 2 cores); it leaves out what only the long validation needs: the
# model spread (4 more calibrate + sweep + fit pairs per transport, ~5.5 min),
# 2 of the 4 repeats, the second testbed setting, p = 8 on the testbed, 4 and
# 16 MiB there (~25 min per setting) and the refinement (~9 min per setting).
case $mode in
  quick)
    sweep=(-b 8 -e 1M -f 8 --time-budget 0.05); repeat=(-b 1M -e 1M --time-budget 0.05); repeats=2
    # The calibration covers the sweep's sizes and some: its 64 MiB default
    # would triple the smoke run for sizes it never measures.
    cal_max=(-e 4M); spread_pairs=0; testbed=skip ;;
  default|full)
    sweep=(-b 8 -e 64M -f 4 --time-budget 0.2)
    # On the sweep's own grid (8·4^k), so each repeat is one more run of the same sizes.
    repeat=(-b 2M -e 32M -f 4 --time-budget 0.1)
    cal_max=()  # calibrate's default, 64 MiB: past the sweep's 32 MiB and the bend out of cache
    # The default keeps one repeat (2 took ~112 s on idle cores): no target
    # reads them, and the time pays for the arrival stage.
    if [ "$mode" = full ]; then repeats=4; spread_pairs=4; testbed=full
    else repeats=1; spread_pairs=0; testbed=default; fi ;;
esac

have_ipc=0
# Not `grep -q`: it stops reading at the first match, and collbench reports
# the broken pipe as a write error, which pipefail then takes for "no IPC".
"$collbench" list | grep '^  ipc ' >/dev/null && have_ipc=1

# ---- stages ---------------------------------------------------------------
# Each stage: a function run in its own process group, the files it must
# leave whole, and its predicted seconds on 2 idle cores (the ETA's weights;
# from the committed reference run's timestamps, results/vm-2026-11-24-3, and
# its testbed durations.txt scaled to the smaller grids; docs/study.md).

calibrate_stage() {  # suffix ("" or "-after")
  local s=$1
  [ -s "$out/calibration$s.csv" ] ||
    mpiexec -bind-to core -n 2 "$collbench" calibrate "${cal_max[@]}" --out "$out/calibration$s.csv" \
      >"$out/calibration$s.txt"
  [ "$have_ipc" = 1 ] || return 0
  [ -s "$out/calibration-ipc$s.csv" ] ||
    mpiexec -bind-to core -n 2 "$collbench" calibrate "${cal_max[@]}" --transport ipc \
      --out "$out/calibration-ipc$s.csv" >"$out/calibration-ipc$s.txt"
}

# --resume for a sweep that left rows in FILE.partial.
resume_of() { [ -e "$1.partial" ] && echo --resume || true; }

sweep_stage() {  # transport, extra flags...
  local t=$1; shift
  # shellcheck disable=SC2046  # resume_of prints one flag or nothing
  mpiexec -bind-to core -n "$ranks" "$collbench" run --transport "$t" "$@" --coll all --algo all \
    "${sweep[@]}" -d float -o sum --placement out --ranks "$rank_list" \
    --csv "$out/sweep-$t.csv" --json "$out/sweep-$t.json" $(resume_of "$out/sweep-$t.csv") \
    "${quiet[@]}" 2>&1 >"$out/sweep-$t.txt" | progress_filter
}

# The headline "best schedule vs MPI" is a ratio of two measurements; the same
# large sizes measured again give its spread over runs (report.py).
repeat_stage() {
  local i
  for i in $(seq 1 "$repeats"); do
    [ -s "$out/repeat-mpi-$i.csv" ] && continue
    progress_part "$((i - 1))" "$repeats"
    # shellcheck disable=SC2046
    mpiexec -bind-to core -n "$ranks" "$collbench" run --transport mpi --coll all --algo all \
      "${repeat[@]}" -d float -o sum --placement out --ranks "$rank_list" \
      --csv "$out/repeat-mpi-$i.csv" $(resume_of "$out/repeat-mpi-$i.csv") "${quiet[@]}" \
      2>&1 >"$out/repeat-mpi-$i.txt" | progress_filter
  done
}

# One calibrate + sweep pair can meet or miss a model target by a few points
# on a VM whose cross-core speed drifts between runs (docs/model.md): more
# pairs of the same commands, whose medians report.py judges beside this
# pair's figures. About 40 s per pair at load 2.
spread_stage() {
  local t i=0
  for t in mpi ipc; do
    [ "$t" = ipc ] && [ "$have_ipc" != 1 ] && continue
    progress_part "$i" 2; i=$((i + 1))
    [ -s "$out/spread-$t/summary.md" ] && continue
    rm -rf "$out/spread-$t"  # an interrupted spread starts again
    bash scripts/model_spread.sh "$out/spread-$t" --transport "$t" --pairs "$spread_pairs" >/dev/null
  done
}

# Stragglers (docs/stragglers.md): allreduce at 256 KiB over MPI, p = 2, one
# rank late by 0.5, 1, 2 and 5 times the fastest no-skew time; the analysis
# grades the model on it (collbench arrival-check) for report.md's section.
arrival_stage() {
  mkdir -p "$out/arrival"
  [ -s "$out/arrival/calibration.csv" ] || cp "$out/calibration.csv" "$out/arrival/calibration.csv"
  CB_BUILD_DIR=$build_dir bash scripts/arrival/validate.sh "$out/arrival" --transport mpi --ranks 2 \
    -b 256K -e 256K --colls allreduce --kinds one-late --scales "0.5 1 2 5" --time-budget 0.05 \
    2>"$out/arrival/validate.txt"
}

testbed_stage() {
  STUDY_PROGRESS=1 bash scripts/testbed/study.sh "$out/testbed" --mode "$testbed" "${quiet[@]}" 2>&1 |
    progress_filter
}

# --full: the committed 3 hosts x 2 ranks run (results/two-level-3x2-2ms-200Mbit-one-load)
# replayed command by command, each collective fitted by level and priced at
# 1024 nodes x 8 ranks on the simulator, its report rendered
# (scripts/testbed/two_level.sh; docs/two-level.md).
two_level_stage() {
  CB_BUILD_DIR=$build_dir bash scripts/testbed/two_level.sh "$out/two-level" >"$out/two-level.txt" 2>&1
}

# The files each stage must leave whole, one a line.
cal_files() {
  echo "$out/calibration$1.csv"
  [ "$have_ipc" = 1 ] && echo "$out/calibration-ipc$1.csv"
  return 0
}
sweep_files() { printf '%s\n' "$out/sweep-$1.csv" "$out/sweep-$1.json"; }
repeat_files() { local i; for i in $(seq 1 "$repeats"); do echo "$out/repeat-mpi-$i.csv"; done; }
spread_files() {
  echo "$out/spread-mpi/summary.md"
  [ "$have_ipc" = 1 ] && echo "$out/spread-ipc/summary.md"
  return 0
}
arrival_files() { echo "$out/arrival/arrival.csv"; }
testbed_files() { bash scripts/testbed/study.sh "$out/testbed" --mode "$testbed" --outputs; }
two_level_files() { bash scripts/testbed/two_level.sh "$out/two-level" --outputs; }

# The testbed needs root and network namespaces; without them the study says
# why and leaves it out (the host study still answers for this machine).
if [ "$testbed" != skip ] && ! why=$(bash scripts/testbed/study.sh --check); then
  log "testbed: left out: $why"
  testbed=skip
fi

# NAME|WEIGHT|COMMAND|FILES: the weight is the stage's predicted seconds on 2
# idle cores. Default and full: from the committed reference run
# (results/vm-2026-11-24-3: its rows' timestamps, and testbed/*/durations.txt
# scaled to the smaller grid); quick: the proportions of a --quick run at
# load 14 (durations.txt: calibrations 75 + 60 s, sweeps 9 + 10 s, repeats
# 20 s, analysis 54 s), scaled to about 90 s. Only their ratios matter: the
# ETA scales them by the measured pace.
if [ "$mode" = quick ]; then
  w_cal=29 w_sweep=4 w_repeat=4 w_ipc=4 w_arrival=6 w_after=23 w_analyse=21
else
  w_cal=40 w_sweep=35 w_repeat=30 w_ipc=30 w_arrival=15 w_after=26 w_analyse=90
fi
ipc_too=""; [ "$have_ipc" = 1 ] && ipc_too=" and IPC"
stages=(
  "calibrate (ping-pong, exchange, k messages, copy, reduce) over MPI$ipc_too|$w_cal|calibrate_stage ''|cal_files ''"
  "measured sweep over MPI: every algorithm + MPI's own, verified|$w_sweep|sweep_stage mpi|sweep_files mpi"
  "$repeats repeats of the large sizes over MPI (spread of best schedule vs MPI)|$((repeats * w_repeat))|repeat_stage|repeat_files"
)
[ "$have_ipc" = 1 ] &&
  stages+=("measured sweep over IPC (host shared memory)|$w_ipc|sweep_stage ipc --mem host|sweep_files ipc")
stages+=("stragglers: allreduce over MPI, one rank late by 0.5..5x its time|$w_arrival|arrival_stage|arrival_files")
stages+=("calibrate again (report.md compares before and after)|$w_after|calibrate_stage -after|cal_files -after")
[ "$spread_pairs" -gt 0 ] &&
  stages+=("model spread: $spread_pairs more calibrate + sweep + fit pairs per transport|330|spread_stage|spread_files")
stages+=("fit, simulated sweep and crossover map, recommendations, plots, report.md|$w_analyse|analyse_host \"\$out\"|host_outputs \"\$out\"")
case $testbed in
  default) stages+=("network testbed: 500 us / 100 Mbit/s, p = 2..6, 8 B..1 MiB|520|testbed_stage|testbed_files") ;;
  full) stages+=("network testbed: 2 settings, p = 2..8, 8 B..16 MiB, refinement|5700|testbed_stage|testbed_files")
    # The weight: the committed run's sweeps took 11-22 min per collective,
    # MPICH's 14 baselines a few minutes each.
    stages+=("two-level testbed: 3 hosts x 2 ranks, flat and hierarchical, all 4 collectives|960|two_level_stage|two_level_files") ;;
esac

if [ "$cores" -lt 4 ]; then
  log "this machine has $cores usable cores: measuring with 2 ranks only (more would oversubscribe and time the scheduler); the simulator covers larger p"
fi
log "writing to $out ($mode study, ${#stages[@]} stages)"
run_stages "$out" "${stages[@]}"

# The answer first: collbench recommend's lines (at most 40), this machine's
# and the testbed's.
for f in "$out/recommend.txt" "$out"/testbed/*/recommend.txt; do
  [ -s "$f" ] || continue
  log "recommendations from ${f%/recommend.txt} (its recommendations.csv has the table):"
  cat "$f" >&2
done

ln -sfn "$(basename "$out")" results/latest
# The host report does not link the testbed's: the root-only stages run after
# it is written, and --refit must rewrite it byte for byte.
reports="$out/report.md"
for f in "$out/testbed/report.md" "$out/two-level/report.md"; do
  if [ -s "$f" ]; then reports+=", $f"; fi
done
log "done in $(clock_text $(( $(date +%s) - study_start ))): $reports (results/latest points there)"
