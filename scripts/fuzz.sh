#!/usr/bin/env bash
# Fuzzes collbench's readers of untrusted text with libFuzzer (tests/fuzz/README.md).
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Builds the targets once into ./build-fuzz (clang, ASan + UBSan, coverage),
# then runs each TARGET (default: all of units ranks results_csv params
# schedule_json) for SECONDS (default 60) on a scratch copy of its committed
# seed corpus, and prints one summary line per target: executions, corpus
# size, crashes. A crash leaves its input in build-fuzz/findings/<target>/;
# fix it, then copy the input into tests/fuzz/regressions/<target>/ so the normal
# suite (meson suite 'fuzz') replays it from then on. Exit 1 if any crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: SECONDS must be a positive integer, got '$seconds'" >&2; exit 2; }
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(units ranks results_csv params schedule_json)
for t in "${targets[@]}"; do
  [ -d "tests/fuzz/corpus/$t" ] || { echo "fuzz: unknown target '$t' (valid: units ranks results_csv params schedule_json)" >&2; exit 2; }
done

bash scripts/install-deps.sh --fuzz
dir=build-fuzz
if [ ! -f "$dir/build.ninja" ]; then
  # Libraries get coverage instrumentation (fuzzer-no-link); the targets link
  # libFuzzer itself (tests/fuzz/meson.build). Only the fuzz targets are built.
  # ccache named explicitly (meson adds it only when CXX is not set), and only
  # where it is installed: install-deps.sh does not require it, and a fresh
  # machine without it must still build the targets.
  cache=""
  command -v ccache >/dev/null 2>&1 && cache="ccache "
  CXX="${cache}clang++" CC="${cache}clang" meson setup "$dir" -Dfuzz=enabled -Dtests=disabled -Dcuda=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Doptimization=1 \
    -Dcpp_args=-fsanitize=fuzzer-no-link >&2
fi
ninja -C "$dir" $(printf 'tests/fuzz/fuzz_%s ' "${targets[@]}") >&2

export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
status=0
for t in "${targets[@]}"; do
  work="$dir/corpus/$t" findings="$dir/findings/$t"
  rm -rf "$work"; mkdir -p "$work" "$findings"
  cp tests/fuzz/corpus/"$t"/* "$work"/
  log="$dir/fuzz-$t.log"
  if "$dir/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 -max_len=65536 \
       -artifact_prefix="$findings/" "$work" >"$log" 2>&1; then
    result="no crash"
  else
    result="CRASH (input in $findings/, log $log)"; status=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "fuzz: $t: ${execs:-?} executions in ${seconds} s, corpus $(ls "$work" | wc -l) inputs: $result"
done
exit $status
