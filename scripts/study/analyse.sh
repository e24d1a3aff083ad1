# shellcheck shell=bash
# Sourced by scripts/study.sh and scripts/testbed/study.sh: everything a study
# computes from its raw measurements (sweeps, calibrations, the run's
# metadata). The study runs these functions once it has measured;
# `scripts/study.sh --refit DIR` runs the same functions on a finished study,
# so what --refit writes is what the study wrote, byte for byte (the same
# commands on the same inputs, with the same paths: the fit's model-report.md
# names its input file). Needs $collbench.
#
# DIR/study.txt records the mode (quick, default, full) that sized the
# simulated sweep and the map; a study without it predates the modes and ran
# what --full runs now.

study_mode_of() {  # DIR
  local m
  m=$(sed -n 's/^mode=//p' "$1/study.txt" 2>/dev/null || true)
  echo "${m:-full}"
}

# The simulated winners maps: one per collective.
map_collectives="allreduce reduce_scatter allgather alltoall"

# The host study's analysis: the merged measurements, the fit (in-sample, and
# out-of-sample from the calibrations), the simulated sweep and the crossover
# map with the fitted parameters, the recommendations, plots and report.md.
analyse_host() {  # DIR
  local d=$1 sim_ranks map_ranks map_max sweeps=() cals=()
  if [ "$(study_mode_of "$d")" = quick ]; then
    sim_ranks=2,16,128; map_ranks=2..256; map_max=256M
  else
    sim_ranks=2,8,64,512; map_ranks=2..4096; map_max=1G
  fi
  [ -e "$d/sweep-mpi.csv" ] && sweeps+=("$d/sweep-mpi.csv")
  [ -e "$d/sweep-ipc.csv" ] && sweeps+=("$d/sweep-ipc.csv")
  # One CSV for the fit: the first file's header, every file's rows.
  { head -n 1 "${sweeps[0]}"; for f in "${sweeps[@]}"; do tail -n +2 "$f"; done; } >"$d/measured.csv.tmp"
  mv "$d/measured.csv.tmp" "$d/measured.csv"
  cals=(--calibration "$d/calibration.csv")
  [ -s "$d/calibration-ipc.csv" ] && cals+=(--calibration "$d/calibration-ipc.csv")
  "$collbench" fit "$d/measured.csv" "${cals[@]}" --mpich-json --out "$d/fit" >"$d/fit.txt"
  local t
  for t in mpi ipc; do
    [ -d "$d/spread-$t" ] && bash scripts/model_spread.sh "$d/spread-$t" --refit
  done
  # Predictions, not measurements: regenerated whole (a --resume of these
  # would keep rows computed from an earlier fit).
  rm -f "$d/sweep-sim.csv.partial" "$d"/map-*.csv.partial
  "$collbench" run --transport sim --params "$d/fit/fit.csv" --params-transport mpi --coll all --algo all \
    -b 8 -e "$map_max" -f 8 -d float -o sum --placement out --ranks "$sim_ranks" \
    --csv "$d/sweep-sim.csv" --quiet >"$d/sweep-sim.txt"
  # One winners map per collective (a file each: plot.py draws map-*.csv).
  local c
  for c in $map_collectives; do
    "$collbench" map --coll "$c" --params "$d/fit/fit.csv" --params-transport mpi --ranks "$map_ranks" \
      -b 8 -e "$map_max" -f 4 --csv "$d/map-$c.csv" --quiet >"$d/map-$c.txt"
  done
  "$collbench" recommend "$d" "${cals[@]}" --out "$d" >"$d/recommend.txt"
  # The arrival stage's rows against the model (report.md's stragglers section).
  if [ -s "$d/arrival/arrival.csv" ]; then
    "$collbench" arrival-check "$d/arrival/arrival.csv" --params "$d/arrival/calibration.csv" \
      --all-terms --out "$d/arrival/check" >"$d/arrival/check.txt"
  fi
  "$collbench" report "$d" >/dev/null
}

# The files analyse_host leaves, one a line.
host_outputs() {  # DIR
  printf '%s\n' "$1/fit/fit.csv" "$1/sweep-sim.csv" "$1/report.md"
  local c
  for c in $map_collectives; do echo "$1/map-$c.csv"; done
  echo "$1/recommendations.csv"
  return 0
}

# One testbed setting's fit of the sweep's grid alone, before a refinement
# pass adds rows (grid-rows.txt: the lines of sweep.csv before it; nothing
# without it). `record` is the command that runs each step
# (scripts/testbed/study.sh logs them in commands.txt; --refit runs them).
analyse_testbed_setting_grid() {  # DIR record...
  local d=$1; shift
  [ -s "$d/grid-rows.txt" ] || return 0
  "$@" head -n "$(cat "$d/grid-rows.txt")" "$d/sweep.csv" >"$d/sweep-grid.csv"
  "$@" "$collbench" fit "$d/sweep-grid.csv" --calibration "$d/calibration.csv" \
    --network "$d/setting.txt" --stack-overhead "$d/probe.csv" --out "$d/fit-grid" >"$d/fit-grid.txt"
  rm -f "$d/sweep-grid.csv"  # a copy of sweep.csv's first lines
}

# One testbed setting's fit of every row (with the rows the CPU rather than
# the configured link limits: fit/link-limited.csv, which report.py reads),
# and the recommendations.
analyse_testbed_setting() {  # DIR record...
  local d=$1; shift
  "$@" "$collbench" fit "$d/sweep.csv" --calibration "$d/calibration.csv" \
    --network "$d/setting.txt" --stack-overhead "$d/probe.csv" --out "$d/fit" >"$d/fit.txt"
  "$@" "$collbench" recommend "$d/sweep.csv" --calibration "$d/calibration.csv" --out "$d" \
    >"$d/recommend.txt"
}

# The testbed report over every setting of DIR (scripts/testbed/report.py).
testbed_report() {  # DIR
  /usr/bin/python3 scripts/testbed/report.py "$1" >&2
}

# --refit: every analysis of DIR again, nothing measured.
refit_study() {  # DIR
  local d=$1 s
  [ -s "$d/sweep-mpi.csv" ] || [ -s "$d/sweep-ipc.csv" ] || [ -d "$d/testbed" ] ||
    { echo "study: --refit: '$d' holds no study (no sweep-mpi.csv, sweep-ipc.csv or testbed/)" >&2; exit 2; }
  if [ -s "$d/sweep-mpi.csv" ] || [ -s "$d/sweep-ipc.csv" ]; then
    echo "study: refit $d: fit, simulated sweep and map, recommendations, plots, report.md" >&2
    analyse_host "$d"
  fi
  [ -d "$d/testbed" ] || return 0
  for s in "$d"/testbed/*/; do
    s=${s%/}
    [ -s "$s/sweep.csv" ] || continue
    echo "study: refit $s: fit, recommendations" >&2
    analyse_testbed_setting_grid "$s"
    analyse_testbed_setting "$s"
  done
  testbed_report "$d/testbed"
  # --full's two-level stage: its fits and report again.
  if [ -s "$d/two-level/report.md" ]; then
    echo "study: refit $d/two-level: fit per collective, report" >&2
    CB_BUILD_DIR=${build_dir:-build} bash scripts/testbed/two_level.sh "$d/two-level" --refit
  fi
}
