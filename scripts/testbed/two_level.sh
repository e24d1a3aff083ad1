#!/usr/bin/env bash
# The two-level stage of scripts/study.sh --full: replays the committed 3
# hosts x 2 ranks run's commands (results/two-level-3x2-2ms-200Mbit-one-load/
# commands.txt: two-level calibrate, a verified sweep of every flat and
# hierarchical algorithm of the four collectives, MPICH's own algorithms,
# a second calibration, the delay-0 probe, all on one testbed at one load)
# into OUTDIR, fits each collective with the calibration taken before its
# sweep, prices its algorithms at 1024 nodes x 8 ranks on the simulator with
# that calibration (OUTDIR/extrapolation-C.csv), and renders OUTDIR/report.md
# (report_two_level.py).
#
#   bash scripts/testbed/two_level.sh OUTDIR             replay, fit, extrapolate, report
#   bash scripts/testbed/two_level.sh OUTDIR --outputs   the files it leaves, one a line
#   bash scripts/testbed/two_level.sh OUTDIR --refit     fit, extrapolate and report only
#   ... --from RUN   replay (or name) RUN's commands.txt and setting.txt instead
#                    of the 3 x 2 reference run (e.g. a 2 x 4 or 4 x 2 layout)
#
# The commands run as recorded, from OUTDIR (their output files are named
# relative to it), with scripts/testbed.sh taken from this checkout; a command
# whose output file (--out or --csv) is already whole is skipped, so a rerun
# resumes. docs/two-level.md ("Validated by level") describes the run.
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
collbench=${CB_BUILD_DIR:-$root/build}/harness/collbench
reference=results/two-level-3x2-2ms-200Mbit-one-load
collectives="allreduce reduce_scatter allgather alltoall"

usage="usage: two_level.sh OUTDIR [--outputs | --refit] [--from RUN]"
out=${1:?$usage}
shift
action=replay
while [ $# -gt 0 ]; do
  case $1 in
    --outputs|--refit) action=$1 ;;
    --from)
      [ $# -ge 2 ] || { echo "two-level: --from needs a run directory ($usage)" >&2; exit 2; }
      reference=$2; shift ;;
    *) echo "two-level: unknown argument '$1' (accepted: --outputs, --refit, --from RUN)" >&2; exit 2 ;;
  esac
  shift
done
for f in commands.txt setting.txt; do
  [ -s "$reference/$f" ] || { echo "two-level: --from '$reference' has no $f (a run directory with commands.txt and setting.txt)" >&2; exit 2; }
done

if [ "$action" = --outputs ]; then
  for c in $collectives; do
    echo "$out/fit-$c/accuracy.csv"; echo "$out/fit-$c/simulated.csv"; echo "$out/extrapolation-$c.csv"
  done
  echo "$out/report.md"
  exit 0
fi

# OUTDIR/replay.sh: commands.txt with the testbed script's path made absolute
# and every command that writes a file guarded by that file.
replay() {
  mkdir -p "$out"
  # The configured setting (what `up` was given, not a measurement).
  cp "$reference/setting.txt" "$out/setting.txt"
  local line file
  {
    echo "set -Eeuo pipefail"
    while IFS= read -r line || [ -n "$line" ]; do
      case $line in ''|'#'*) continue ;; esac
      line=${line//bash scripts\/testbed.sh/bash \"$root\"\/scripts\/testbed.sh}
      file=""
      [[ $line =~ --(out|csv)\ ([^ ]+) ]] && file=${BASH_REMATCH[2]}
      if [ -n "$file" ]; then echo "[ -s $file ] && [ ! -e $file.partial ] || $line"
      else echo "$line"; fi
    done <"$reference/commands.txt"
  } >"$out/replay.sh"
  # A testbed left up by an interrupted command is brought down by the next
  # `up` of the same name failing; bring every name down on the way out.

  names=$(grep -o -- '--name [a-z0-9]*' "$reference/commands.txt" | sort -u | cut -d' ' -f2)
  trap 'for n in $names; do bash scripts/testbed.sh down --name "$n" >/dev/null 2>&1 || true; done' EXIT
  (cd "$out" && CB_BUILD_DIR=${CB_BUILD_DIR:-$root/build} bash replay.sh)
}

# Each collective's sweep priced with the calibration taken before it, the
# configured link and the delay-0 probe (accuracy.csv: scopes hierarchical
# and flat; network.csv; crossovers.csv kind family; families.csv), and on
# the simulator with the same calibration's two levels (--simulate:
# simulated.csv, accuracy.csv's scopes sim-hierarchical and sim-flat).
fit_all() {
  local c f
  for c in $collectives; do
    # MPICH's own algorithms forced by CVARs (mpich-C-TAG.csv): the library's
    # contenders beside the sweep's default in families.csv.
    local libraries=()
    for f in "$out"/mpich-"$c"-*.csv; do [ -s "$f" ] && libraries+=(--library "$f"); done
    "$collbench" fit "$out/$c.csv" --calibration "$out/calibration.csv" \
      --network "$out/setting.txt" --stack-overhead "$out/probe.csv" --simulate "${libraries[@]}" \
      --out "$out/fit-$c" >"$out/fit-$c.txt"
  done
}

# The extrapolation: each collective's sweep (its --algo list in commands.txt)
# priced by the simulator at 1024 nodes x 8 ranks with the run's two-level
# calibration, `collbench map` (extrapolation-C.csv; its exact fast path for the
# hierarchical names, the discrete-event simulation for the flat ones), at
# 8 B, 4 KiB and 2 MiB (reduce_scatter, allgather and alltoall hold one element
# per rank only from 32 KiB at 8192 ranks: 2 MiB alone). mpi has no model; map
# itself leaves out, with a note in the row, every discrete-event case it
# estimates above 2e7 message events (sim::estimated_events: the flat naive,
# ps, ring and pairwise, p - 1 or more rounds of 8192 ranks, 8-150 CPU-s each
# per size and never the fastest; docs/two-level.md, "Extrapolated to 1024
# nodes x 8 ranks"), so the rule that decides is the C++ one.
extrapolated_nodes=1024
extrapolated_ranks_per_node=8
extrapolate() {
  local c line algos
  for c in $collectives; do
    line=$(grep -e "--csv $c.csv" "$reference/commands.txt")
    [[ $line =~ --algo\ ([^ ]+) ]] || { echo "two-level: no --algo list for $c in $reference/commands.txt" >&2; exit 2; }
    algos=$(tr , '\n' <<<"${BASH_REMATCH[1]}" | grep -vx mpi | paste -sd,)
    "$collbench" map --coll "$c" --algo "$algos" --ranks $((extrapolated_nodes * extrapolated_ranks_per_node)) \
      --ranks-per-node "$extrapolated_ranks_per_node" --params "$out/calibration.csv" \
      -b 8 -e 2M -f 512 --max-events 2e7 --quiet --csv "$out/extrapolation-$c.csv" >/dev/null
  done
}

[ "$action" = --refit ] || replay
fit_all
extrapolate
/usr/bin/python3 scripts/testbed/report_two_level.py "$out" >&2
