#!/usr/bin/env bash
# Measures algorithms under process arrival patterns for the validation of
# the arrival model (docs/stragglers.md): per collective, rank count and size,
# a no-skew run gives T0 (the fastest algorithm's median), then one-late and
# uniform patterns at delays of SCALE x T0 each get their own launch (a
# pattern's delay applies to every size of a run, and T0 differs per size).
# `collbench arrival-check` compares what this writes with the model.
#
#   bash scripts/arrival/validate.sh OUT --transport mpi|ipc|testbed --ranks "2 3 4" \
#       -b 64K -e 256K [-f 4] [--scales "0.5 1 2 5"] [--kinds "one-late uniform"]
#       [--colls "allreduce ..."] [-n N] [--latency 2ms --bandwidth 200Mbit] [--hosts N]
#       [--cal-max 4M] [--time-budget S] [--name TESTBED] [--algos "ps,tree"]
#
# --algos measures only the given algorithms of each collective (a skew
# crossover between a few of them, docs/stragglers.md); default: every
# schedule algorithm, and T0 is the fastest of those measured.
#
# Writes OUT/calibration.csv (2 ranks on the host, every host on the testbed;
# one already there is used: the study copies its own),
# OUT/noskew.csv, OUT/delays.txt (collective p bytes T0_us scale delay_us),
# OUT/arrival.csv (every pattern's rows), OUT/commands.txt, and for the testbed
# OUT/setting.txt. A run that is already in OUT (its part file) is not redone.
set -Eeuo pipefail
cd "$(dirname "$0")/../.."

die() { echo "arrival-validate: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: validate.sh OUT --transport mpi|ipc|testbed --ranks LIST --sizes LIST"
out=$1; shift
transport=""; ranks=""; min_b=""; max_b=""; factor=4; scales="0.5 1 2 5"; kinds="one-late uniform"
colls="allreduce reduce_scatter allgather alltoall"; iters=0; latency=2ms; bandwidth=200Mbit
cal_max=4M; hosts=""; budget=0.2; tb_name=sg; algos=""
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "$1 needs a value"
  case $1 in
    --transport) transport=$2 ;;
    --ranks) ranks=$2 ;;
    -b) min_b=$2 ;;
    -e) max_b=$2 ;;
    -f) factor=$2 ;;
    --scales) scales=$2 ;;
    --kinds) kinds=$2 ;;
    --colls) colls=$2 ;;
    -n) iters=$2 ;;
    --latency) latency=$2 ;;
    --bandwidth) bandwidth=$2 ;;
    --cal-max) cal_max=$2 ;;
    --hosts) hosts=$2 ;;
    --time-budget) budget=$2 ;;
    --name) tb_name=$2 ;;
    --algos) algos=$2 ;;
    *) die "unknown argument '$1'" ;;
  esac
  shift 2
done
case $transport in mpi|ipc|testbed) ;; *) die "--transport '$transport' is not mpi, ipc or testbed" ;; esac
[ -n "$ranks" ] && [ -n "$min_b" ] && [ -n "$max_b" ] || die "--ranks, -b and -e are required"

collbench=${CB_BUILD_DIR:-build}/harness/collbench
[ -x "$collbench" ] || die "$collbench is not built"
mkdir -p "$out/parts"
cmds=$out/commands.txt
step() { echo "$*" >>"$cmds"; "$@"; }

max_p=0; for p in $ranks; do [ "$p" -gt "$max_p" ] && max_p=$p; done
hosts=${hosts:-$max_p}  # testbed: hosts brought up (and calibrated on); a later call may use more ranks
# The launch of P ranks: on one host bound to cores (P > cores oversubscribes,
# and the rows say so), on the testbed one rank per host.
launch() {  # P collbench-args...
  local p=$1; shift
  if [ "$transport" = testbed ]; then
    step bash scripts/testbed.sh run --name "$tb_name" --np "$p" -- "$@"
  else
    step mpiexec -bind-to core -n "$p" "$collbench" "$@"
  fi
}
# How the ranks of a run wait: on one host with a core per rank they spin
# (--wait spin, whatever the load average: a yielding rank hands its core
# to other work and starts its window late, and such samples are dropped);
# oversubscribed they yield; the testbed's launcher makes them sleep.
wait_flags() {  # P
  [ "$transport" != testbed ] && [ "$1" -le "$(nproc)" ] && echo "--wait spin"
  [ "$transport" != testbed ] && [ "$1" -gt "$(nproc)" ] && echo "--wait yield"
  return 0
}
# IPC as the study sweeps it: host shared memory (calibrate has no --mem).
tflags=(); calflags=()
[ "$transport" = ipc ] && tflags=(--transport ipc --mem host) && calflags=(--transport ipc)
common=(-d float -o sum --placement out --start window --mode-probe off -n "$iters" --quiet)
[ "$iters" = 0 ] && common+=(--time-budget "$budget")

if [ "$transport" = testbed ]; then
  if [ ! -e "/run/collbench-testbed/$tb_name/config" ]; then
    step bash scripts/testbed.sh up --name "$tb_name" --hosts "$hosts" --latency "$latency" \
      --bandwidth "$bandwidth"
  fi
  printf 'latency_us=%s\nbandwidth_bps=%s\nhosts=%s\ncores=%s\n' \
    "$(sed -n 's/^latency_us=//p' /run/collbench-testbed/$tb_name/config)" \
    "$(sed -n 's/^bandwidth_bps=//p' /run/collbench-testbed/$tb_name/config)" \
    "$hosts" "$(nproc)" >"$out/setting.txt"
  [ -s "$out/calibration.csv" ] ||
    launch "$hosts" calibrate -e "$cal_max" --out "$out/calibration.csv" >"$out/calibration.txt"
else
  [ -s "$out/calibration.csv" ] ||
    launch 2 calibrate "${calflags[@]}" -e "$cal_max" --out "$out/calibration.csv" >"$out/calibration.txt"
fi

# The schedule algorithms of a collective (collbench list's matrix), or --algos.
algos_of() {  # collective
  [ -n "$algos" ] && { echo "$algos"; return; }
  "$collbench" list | awk -v c="$1" '
    /^algorithm / { for (i = 2; i <= NF; i++) col[$i] = i; next }
    col[c] && NF >= col[c] && $(col[c]) == "yes" { s = s (s ? "," : "") $1 }
    /^$/ && s { print s; exit }'
}

# T0 per (collective, p, bytes): the fastest algorithm's median without a pattern.
for c in $colls; do
  for p in $ranks; do
    f=$out/parts/noskew-$c-$p.csv
    [ -s "$f" ] && continue
    rm -f "$f.partial"
    # shellcheck disable=SC2046  # wait_flags: zero or two words
    launch "$p" run "${tflags[@]}" --coll "$c" --algo "$(algos_of "$c")" --ranks "$p" \
      -b "$min_b" -e "$max_b" -f "$factor" "${common[@]}" $(wait_flags "$p") --csv "$f" >/dev/null
  done
done

# A CSV column by name, for awk (-v k=INDEX).
col() { head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# delays.txt: collective p bytes T0_us scale delay_us (integer microseconds,
# at least 1), from every no-skew part in OUT (an earlier call's rank counts
# and sizes too: their launches already done are skipped below).
: >"$out/delays.txt.tmp"
for f in "$out"/parts/noskew-*.csv; do
    c=${f##*/noskew-}; c=${c%.csv}; p=${c##*-}; c=${c%-*}
    awk -F, -v b="$(col "$f" bytes)" -v t="$(col "$f" time_median_us)" -v c="$c" -v p="$p" \
        -v scales="$scales" '
      NR > 1 && $t != "" { if (!($b in best) || $t + 0 < best[$b]) best[$b] = $t + 0 }
      END {
        n = split(scales, s, " ")
        for (bytes in best)
          for (i = 1; i <= n; i++) {
            d = int(s[i] * best[bytes] + 0.5); if (d < 1) d = 1
            printf "%s %s %s %.6g %s %d\n", c, p, bytes, best[bytes], s[i], d
          }
      }' "$f" | sort -k3,3n -k5,5g >>"$out/delays.txt.tmp"
done
mv "$out/delays.txt.tmp" "$out/delays.txt"

# One launch per (collective, p, size, pattern, delay).
while read -r c p bytes t0 scale delay; do
  for kind in $kinds; do
    f=$out/parts/$kind-$c-$p-$bytes-$scale.csv
    [ -s "$f" ] && continue
    rm -f "$f.partial"  # an interrupted run starts again
    # shellcheck disable=SC2046
    launch "$p" run "${tflags[@]}" --coll "$c" --algo "$(algos_of "$c")" --ranks "$p" \
      -b "$bytes" -e "$bytes" "${common[@]}" $(wait_flags "$p") --arrival "$kind:${delay}us" \
      --csv "$f" >/dev/null </dev/null
  done
done <"$out/delays.txt"

# Every pattern's rows in one file (the first part's header), and the no-skew runs in another.
merge() {  # OUT_FILE PART...
  local target=$1; shift
  { head -n 1 "$1"; for f in "$@"; do tail -n +2 "$f"; done; } >"$target.tmp"
  mv "$target.tmp" "$target"
}
shopt -s nullglob
parts=("$out"/parts/one-late-*.csv "$out"/parts/uniform-*.csv)
merge "$out/arrival.csv" "${parts[@]}"
merge "$out/noskew.csv" "$out"/parts/noskew-*.csv
# The testbed stays up for a later call with more ranks (scripts/testbed.sh down --name NAME).
echo "arrival-validate: $out/arrival.csv ($(($(wc -l <"$out/arrival.csv") - 1)) rows)" >&2
# The check, report.md and plot of what is in OUT so far (regenerated on every call).
[ "$(wc -l <"$out/arrival.csv")" -gt 1 ] && bash scripts/arrival/report.sh "$out"
exit 0
