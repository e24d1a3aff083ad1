#!/usr/bin/env bash
# One case family of the 'external' suite (docs/pmpi-external.md): stock OSU
# micro-benchmarks or MPICH's own test/mpi/coll tests for one collective,
# built with the MPICH compiler from the sources -Dexternal_tests names (never
# copied into this repository), then run unmodified through
# libcollbench-pmpi.so for every algorithm the library can run for that
# collective, plus auto, at p = 2..5.
#
# A run fails on
#   - a wrong result: a nonzero exit status, an OSU "Fail" line (its -c
#     validation) or no OSU "Pass" line, an MPICH test without its " No Errors";
#   - a hang: no end within EXTERNAL_TIMEOUT seconds;
#   - an unexpected fallback: COLLBENCH_REPORT lists a reason the library does
#     not document for that program (OSU: none at all; MPICH: per test, below),
#     or no call of the collective ran a collbench schedule (auto excepted:
#     it may keep the library's own collective wherever no schedule is
#     predicted faster).
#
# Usage: run_external.sh SOURCE COLLECTIVE DIR LIB MPIEXEC MPICC COLLBENCH PARAMS WORK
#   SOURCE osu|mpich; COLLECTIVE allreduce|reduce_scatter|allgather|alltoall;
#   DIR the -Dexternal_tests directory ('' when unset); PARAMS the parameter
#   file COLLBENCH_ALGO=auto prices with; WORK where programs and logs go.
# Environment (optional): EXTERNAL_RANKS ("2 3 4 5"), EXTERNAL_TIMEOUT (s per
# run, 240), EXTERNAL_ALGOS (only these algorithms), EXTERNAL_TESTS (only these
# MPICH tests).
# Exit 0 all passed, 1 a failure, 77 skipped (meson's code), the reason last.
set -u

source_kind=${1:?osu or mpich}
coll=${2:?collective}
dir=${3-}
lib=${4:?libcollbench-pmpi.so}
mpiexec=${5:?mpiexec}
mpicc=${6-}
collbench=${7:?collbench}
params=${8:?parameter file for auto}
work=${9:?work directory}
ranks=${EXTERNAL_RANKS:-"2 3 4 5"}
per_run_timeout=${EXTERNAL_TIMEOUT:-240}

skip() { echo "skipped: $*"; exit 77; }
[ -n "$dir" ] || skip "-Dexternal_tests is not set (meson configure build -Dexternal_tests=DIR; docs/pmpi-external.md)"
[ -d "$dir" ] || skip "-Dexternal_tests=$dir is not a directory"
[ -n "$mpicc" ] && [ -x "$mpicc" ] || skip "no MPI C compiler (mpicc) found"

# The source trees under DIR, found by a file of their layout.
find_root() {  # $1 marker path relative to the root, $2 levels from marker to root
  local hit up i
  hit=$(find -L "$dir" -path "*/$1" -print -quit 2>/dev/null)
  [ -n "$hit" ] || return 1
  up=$hit
  for ((i = 0; i < $2; i++)); do up=$(dirname "$up"); done
  echo "$up"
}
case $source_kind in
  osu) root=$(find_root c/mpi/collective/blocking/osu_allreduce.c 5) ||
         skip "$dir holds no OSU micro-benchmarks (c/mpi/collective/blocking/osu_allreduce.c)" ;;
  mpich) root=$(find_root test/mpi/coll/allred3.c 4) ||
           skip "$dir holds no MPICH test tree (test/mpi/coll/allred3.c)" ;;
  *) echo "run_external.sh: SOURCE=$source_kind: accepted: osu, mpich" >&2; exit 2 ;;
esac

out_dir=$work/$source_kind
mkdir -p "$out_dir"
log=$out_dir/$coll.log
results=$out_dir/$coll.tsv
: >"$log"
printf 'program\tcollective\talgorithm\tranks\tresult\tseconds\n' >"$results"
runs=0
failures=0
started=$SECONDS

# Builds are shared by the tests of one source tree (and kept between runs):
# one at a time, and only what is older than its sources.
exec 9>"$work/.build.lock"
cc() {  # $1 output, rest: sources and flags
  local target=$1 newest s
  shift
  newest=1
  for s in "$@"; do
    case $s in -*) continue ;; esac
    [ "$target" -nt "$s" ] || newest=0
  done
  [ "$newest" = 1 ] && return 0
  flock 9
  nice -n 10 "$mpicc" -O2 -w -o "$target" "$@" >>"$log" 2>&1
  local rc=$?
  flock -u 9
  return $rc
}

# The algorithms of this collective that the library runs (collbench list's
# "coll/name: " lines; the hierarchical "coll/hier:INNER/OUTER" forms are
# collbench run's, not the library's), then auto.
algorithms() {
  "$collbench" list | sed -n "s/^  $coll\/\([a-z0-9_]*\): .*/\1/p"
  echo auto
}
algos=$(algorithms)
if [ -n "${EXTERNAL_ALGOS-}" ]; then
  algos=$(for a in $algos; do [[ " $EXTERNAL_ALGOS " == *" $a "* ]] && echo "$a"; done)
fi
[ -n "$algos" ] || { echo "FAIL: no algorithm of $coll in '$collbench list'"; exit 1; }

fail() { echo "FAIL: $*" | tee -a "$log"; failures=$((failures + 1)); }

# One run. $1 the allowed fallback reasons (an extended regex, '' for none),
# $2 algorithm, $3 ranks, rest: the program and its arguments.
run_one() {
  local allowed=$1 algo=$2 p=$3
  shift 3
  local what out rc t0 verdict=pass
  what="$(basename "$1")${2:+ ${*:2}} $coll=$algo p=$p"
  out=$out_dir/$coll.run.out  # one per family: families may run side by side
  runs=$((runs + 1))
  t0=$SECONDS
  # COLLBENCH_WAIT=auto already yields when ranks outnumber cores; MPICH's
  # own waits (the programs' barriers) spin, which only costs time.
  timeout -k 10 "$per_run_timeout" nice -n 10 "$mpiexec" -n "$p" \
    -genv LD_PRELOAD "$lib" -genv "COLLBENCH_$(echo "$coll" | tr a-z A-Z)" "$algo" \
    -genv COLLBENCH_PARAMS "$params" -genv COLLBENCH_REPORT 1 "$@" </dev/null >"$out" 2>&1
  rc=$?
  {
    echo "=== $what (exit $rc, $((SECONDS - t0)) s)"
    cat "$out"
  } >>"$log"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    fail "$what: no end after ${per_run_timeout} s (hang)"
    verdict=hang
  elif [ "$rc" -ne 0 ]; then
    fail "$what: exit status $rc: $(grep -m1 -iE 'error|fail|mismatch' "$out")"
    verdict="exit"
  elif [ "$source_kind" = osu ] &&
    { grep -qE '[[:space:]]Fail[[:space:]]*$' "$out" || ! grep -qE '[[:space:]]Pass[[:space:]]*$' "$out"; }; then
    fail "$what: wrong result: $(grep -m1 -E 'Fail|Error|error' "$out")"
    verdict=wrong
  elif [ "$source_kind" = mpich ] && ! grep -qE '^ ?No Errors$' "$out"; then
    fail "$what: wrong result: $(grep -m1 -iE 'error|mismatch|expected' "$out")"
    verdict=wrong
  else
    # The report (rank 0's counts): at least one call of this collective ran
    # a collbench schedule, and every fallback is one allowed for the program.
    local ran fallbacks
    ran=$(sed -n '/^# collective /,/^# calls that went/p' "$out" |
      awk -v c="$coll" '$1 == c && $2 != "mpi" { n += $(NF - 3) } END { print n + 0 }')
    fallbacks=$(sed -n '/^# calls that went to the MPI library instead/,$p' "$out" |
      grep -E '^  [a-z_]+ ' || true)
    [ -n "$allowed" ] && fallbacks=$(echo "$fallbacks" | grep -vE "$allowed" || true)
    if ! grep -q '^# calls that went to the MPI library instead' "$out"; then
      fail "$what: no COLLBENCH_REPORT table (was the library preloaded?)"
      verdict=report
    elif [ "$ran" -eq 0 ] && [ "$algo" != auto ]; then
      # auto may keep MPI's own collective for every call: it replaces the
      # library only where a schedule is predicted faster than MPICH's
      # default choice (models/do_no_harm.hpp), which at reduce_scatter p = 2
      # and 4 is already recursive halving. Its calls are still intercepted:
      # the fallback check below holds them.
      fail "$what: no $coll call ran a collbench schedule"
      verdict=fallback
    elif [ -n "$fallbacks" ]; then
      fail "$what: unexpected fallback: $(echo "$fallbacks" | head -1 | tr -s ' ')"
      verdict=fallback
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$1")${2:+ ${*:2}}" "$coll" "$algo" "$p" \
    "$verdict" "$((SECONDS - t0))" >>"$results"
}

run_matrix() {  # $1 allowed fallbacks, $2 $3 fewest and most ranks, rest: program and arguments
  local allowed=$1 min_p=$2 max_p=$3 algo p
  shift 3
  for algo in $algos; do
    for p in $ranks; do
      [ "$p" -ge "$min_p" ] && [ "$p" -le "$max_p" ] && run_one "$allowed" "$algo" "$p" "$@"
    done
  done
}

if [ "$source_kind" = osu ]; then
  echo "OSU micro-benchmarks: $root"
  u=$root/c/util
  bin=$out_dir/osu_$coll
  # OSU's configure only adds PACKAGE_VERSION for the banner; no other
  # setting concerns the CPU build of the blocking collectives.
  cc "$bin" -I"$u" -DPACKAGE_VERSION='"stock"' "$root/c/mpi/collective/blocking/osu_$coll.c" \
    "$u/osu_util.c" "$u/osu_util_mpi.c" "$u/osu_util_graph.c" "$u/osu_util_papi.c" \
    "$u/osu_util_validation.c" -lm || { fail "building osu_$coll (see $log)"; exit 1; }
  # -c validates every result of every size (OSU's defaults: MPI_CHAR, and
  # for the reductions MPI_SUM); sizes up to 8 KiB cover counts below, at and
  # above p and uneven splits, which is where the schedules differ; a few
  # iterations keep a run short on a loaded machine.
  run_matrix "" 2 999 "$bin" -c -m 1:8192 -i 2 -x 0
else
  echo "MPICH tests: $root/test/mpi/coll"
  t=$root/test/mpi
  conf=$work/mpich/conf
  mkdir -p "$conf/include" "$conf/dtpools/include" "$work/mpich/obj"
  # The few mpitestconf.h settings MPICH's test configure finds on Linux
  # with gcc, without GPU or thread packages (_Bool makes allred test
  # MPI_C_BOOL with the logical ops).
  cat >"$conf/include/mpitestconf.h.new" <<'EOF'
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE__BOOL 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
EOF
  cmp -s "$conf/include/mpitestconf.h.new" "$conf/include/mpitestconf.h" ||
    mv "$conf/include/mpitestconf.h.new" "$conf/include/mpitestconf.h"
  [ -e "$conf/include/mtest_mpix.h" ] || : >"$conf/include/mtest_mpix.h"
  # DTPools includes "../dtpoolsconf.h" from its own include folder; the
  # empty dtpools/include here makes that name resolve to our file.
  [ -e "$conf/dtpoolsconf.h" ] ||
    printf '#define HAVE_%s 1\n' STDLIB_H STRING_H LIMITS_H STDINT_H SYS_TYPES_H STRDUP MEMSET \
      >"$conf/dtpoolsconf.h"
  flags=(-I"$conf/include" -I"$conf/dtpools/include" -I"$t/include" -I"$t/dtpools/include")
  objs=()
  for src in "$t"/util/{mtest,mtest_common,mtest_single,dtypes}.c "$t"/dtpools/src/*.c; do
    o=$work/mpich/obj/$(basename "$src" .c).o
    cc "$o" -c "${flags[@]}" "$src" || { fail "building $(basename "$src") (see $log)"; exit 1; }
    objs+=("$o")
  done
  runner=$work/mpich/obj/run_mpitests.o
  cc "$runner" -c "${flags[@]}" "$t/util/run_mpitests.c" || { fail "building run_mpitests.c"; exit 1; }

  case $coll in
    allreduce) patterns="allred*" ; calls='Allreduce' ;;
    reduce_scatter) patterns="redscat* red_scat_block*" ; calls='Reduce_scatter(_block)?' ;;
    allgather) patterns="allgather*" ; calls='Allgather' ;;
    alltoall) patterns="alltoall*" ; calls='Alltoall' ;;
  esac
  for pattern in $patterns; do
    for src in "$t"/coll/$pattern.c; do
      [ -e "$src" ] || continue
      name=$(basename "$src" .c)
      if [ -n "${EXTERNAL_TESTS-}" ] && [[ " $EXTERNAL_TESTS " != *" $name "* ]]; then continue; fi
      # Left out, with the reason in the log: GPU memory (no GPU path in the
      # library), intercommunicators (the library passes every such call to
      # MPI, documented, so the algorithm changes nothing), and tests that
      # call none of the intercepted entry points (MPI_Allgatherv,
      # MPI_Alltoallv, MPI_Alltoallw are MPI's own).
      case $name in
        *_gpu) echo "  $name: left out (GPU memory)" | tee -a "$log"; continue ;;
        *inter) echo "  $name: left out (intercommunicators only)" | tee -a "$log"; continue ;;
        # Every MPI_Allgather of it uses a struct type with a gap, which the
        # library passes to MPI (documented), so the algorithm changes nothing.
        allgather_struct) echo "  $name: left out (non-contiguous datatype only)" | tee -a "$log"; continue ;;
        # Likewise every reduce-scatter of these uses a user-defined op.
        redscat2 | red_scat_block2) echo "  $name: left out (user-defined op only)" | tee -a "$log"; continue ;;
      esac
      # (MTest_Allreduce ... are mpicolltest.h's wrappers of the blocking call.)
      if ! grep -qE "\b(MPI|MTest)_${calls}[[:space:]]*\(" "$src"; then
        echo "  $name: left out (calls no intercepted $coll entry point)" | tee -a "$log"
        continue
      fi
      bin=$work/mpich/$name
      extra=()
      grep -qE '^int main' "$src" || extra=("$runner")
      cc "$bin" "${flags[@]}" "$src" "${extra[@]}" "${objs[@]}" -lm ||
        { fail "building $name (see $log)"; continue; }
      # Fallbacks the library documents (transports/mpi/pmpi/README.md,
      # "Fallbacks") for what each test deliberately passes.
      allowed=
      min_p=2
      case $name in
        # Every predefined type and op: complex types, and the pair types
        # (MPI_2INT, MPI_DOUBLE_INT ...) for MINLOC/MAXLOC.
        allred) allowed='datatype collbench does not reduce|non-contiguous datatype' ;;
        # A user-defined op on a derived datatype (a contiguous matrix type in
        # allred3 and allred4, a vector in allred_derived); the type is
        # classified first, so the report names the type.
        allred3 | allred4) allowed='datatype collbench does not reduce' ;;
        allred_derived) allowed='datatype collbench does not reduce|non-contiguous datatype' ;;
        # A user-defined op on a predefined type, besides MPI_SUM.
        allred6) allowed='user-defined op' ;;
        # Needs at least three ranks (its own check).
        allred_float) min_p=3 ;;
      esac
      # The argument sets MPICH's own testlist.in gives the test (allred:
      # -count=10 and -count=100), without -nonblocking (MPI_I* calls are
      # not intercepted); none when it gives none.
      arg_sets=$(awk -v n="$name" '$1 == n { a = ""; for (i = 3; i <= NF; i++)
          if ($i ~ /^arg=/) a = (a == "" ? "" : a " ") substr($i, 5); print a }' "$t/coll/testlist.in" |
        grep -v -- '-nonblocking' | sort -u)
      [ -n "$arg_sets" ] || arg_sets=" "
      while IFS= read -r args; do
        max_p=999
        # allred's MPI_PROD test expects float(i^p) exactly; with -count=100
        # and p = 5, i^5 (i < 100) needs more than float's 24 significand
        # bits, so the answer depends on the order of the roundings, which
        # MPI leaves to the algorithm (a left fold is off for 9 values of i,
        # MPICH's order happens not to be). MPICH runs -count=100 at 4 ranks.
        [ "$name $args" = "allred -count=100" ] && max_p=4
        # shellcheck disable=SC2086 # an argument set is words
        run_matrix "$allowed" "$min_p" "$max_p" "$bin" $args
      done <<<"$arg_sets"
    done
  done
fi

summary="external $source_kind $coll: $((runs - failures)) of $runs runs passed in $((SECONDS - started)) s"
echo "log: $log; per run: $results"
echo "$summary"
[ "$failures" -eq 0 ] || exit 1
