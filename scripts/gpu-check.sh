#!/usr/bin/env bash
# The GPU path in one command: builds collbench with CUDA (its own build
# directory), runs the CUDA tests, then a short verified sweep over CUDA-IPC
# and the NCCL baseline, and writes everything under results/gpu-<host>-<date>/.
#
#   bash scripts/gpu-check.sh [--out DIR] [--build DIR] [--budget SECONDS]
#
# Made to run unattended on a GPU machine that got a copy of the tree: no
# prompts, no network (it installs nothing: meson, ninja, MPICH, nvcc and, for
# the baseline, NCCL must be there), every step bounded by `timeout`, and a
# one-line summary as its last line. Without a GPU it prints one "no GPU: ..."
# line and exits 0 at once, building nothing.
#
# Exit status: 0 every check passed (or no GPU); 1 a test failed, a row was
# wrong or missing, or a required run failed; 2 bad usage; 3 the check could
# not run or is incomplete (a tool, NCCL or matplotlib missing, the build
# failed, the time budget ran out). docs/gpu.md describes the output.
set -uo pipefail
cd "$(dirname "$0")/.."

out="" build=build-gpu budget=480
usage() { echo "usage: bash scripts/gpu-check.sh [--out DIR] [--build DIR] [--budget SECONDS]"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || { echo "gpu-check: --out needs a directory" >&2; exit 2; }; out=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || { echo "gpu-check: --build needs a directory" >&2; exit 2; }; build=$2; shift 2 ;;
    --budget)
      [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] && [ "${#2}" -le 6 ] && [ "$2" -ge 60 ] ||
        { echo "gpu-check: --budget '${2-}': give whole seconds, 60..999999" >&2; exit 2; }
      budget=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (accepted: --out DIR, --build DIR, --budget SECONDS)" >&2; exit 2 ;;
  esac
done

# --- Is there a GPU? (decided before anything is built or written) ---------
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "no GPU: nvidia-smi is not on PATH; nothing built or run (gpu-check exits 0)"; exit 0
fi
if ! gpu_list=$(timeout 30 nvidia-smi -L 2>&1); then
  echo "no GPU: 'nvidia-smi -L' failed: $(printf '%s' "$gpu_list" | head -n 1); nothing built or run (gpu-check exits 0)"
  exit 0
fi
gpus=$(printf '%s\n' "$gpu_list" | grep -c '^GPU [0-9]')
if [ "$gpus" -eq 0 ]; then
  echo "no GPU: 'nvidia-smi -L' lists no device; nothing built or run (gpu-check exits 0)"; exit 0
fi

start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - start) )); }
if [ -z "$out" ]; then
  base="results/gpu-$(hostname -s)-$(date -u +%Y-%m-%d)"
  out=$base; n=2
  while [ -e "$out" ]; do out="$base-$n"; n=$((n + 1)); done
fi
mkdir -p "$out" || { echo "gpu-check: INCOMPLETE: cannot create $out"; exit 3; }
log() { echo "gpu-check: $*" | tee -a "$out/gpu-check.log" >&2; }
failures=() incomplete=()
finish() {
  local status=0 verdict=PASS all=() detail short elapsed
  [ ${#incomplete[@]} -gt 0 ] && { status=3; verdict=INCOMPLETE; }
  [ ${#failures[@]} -gt 0 ] && { status=1; verdict=FAIL; }
  all=("${failures[@]}" "${incomplete[@]}")
  detail=$(printf '%s; ' "${all[@]}"); detail=${detail%; }
  # The summary line names at most two reasons; report.md lists every one.
  short=$(printf '%s; ' "${all[@]:0:2}"); short=${short%; }
  [ ${#all[@]} -gt 2 ] && short="$short; $(( ${#all[@]} - 2 )) more in report.md"
  elapsed=$(( $(date +%s) - start ))
  printf 'verdict=%s\nelapsed_s=%s\n' "$verdict" "$elapsed" >>"$out/check.txt"
  [ ${#all[@]} -gt 0 ] && printf '%s\n' "${all[@]}" >"$out/reasons.txt"
  # report.md is rendered from the files above (C++ and the shell write
  # data; Python renders every report).
  if ! /usr/bin/python3 scripts/gpu_report.py "$out"; then
    status=3; verdict=INCOMPLETE; short="report.md not written${short:+; $short}"
  fi
  echo "gpu-check: $verdict: $gpus GPU(s), $rows_ok of $rows_all rows verified, $elapsed s${short:+; $short}; $out"
  exit "$status"
}
rows_ok=0 rows_all=0

printf '%s\n' "$gpu_list" >"$out/gpus.txt"
# The facts scripts/gpu_report.py renders beside the files named there.
rm -f "$out/reasons.txt" "$out/version.txt" "$out/tests.log" "$out/runs.csv" "$out/refused.txt"
printf 'host=%s\ngpus=%s\nshared_gpu=%s\n' "$(hostname -s)" "$gpus" "$([ "$gpus" -eq 1 ] && echo 1 || echo 0)" >"$out/check.txt"
log "$gpus GPU(s): $(printf '%s\n' "$gpu_list" | head -n 1)$([ "$gpus" -gt 1 ] && echo " ...")"

# --- Tools: nothing is installed (no network) --------------------------------
missing=()
for tool in meson ninja mpiexec timeout awk; do command -v "$tool" >/dev/null || missing+=("$tool"); done
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || missing+=(nvcc)
if [ ${#missing[@]} -gt 0 ]; then
  incomplete+=("missing tools: ${missing[*]}")
  finish
fi

# --- Build with CUDA in its own directory -------------------------------------
log "build: $build (-Dcuda=enabled), log in $out/build.log"
if [ ! -f "$build/build.ninja" ]; then
  timeout "$(left)" meson setup "$build" -Dcuda=enabled >"$out/build.log" 2>&1 ||
    { incomplete+=("meson setup failed (build.log)"); finish; }
fi
timeout "$(left)" ninja -C "$build" >>"$out/build.log" 2>&1 ||
  { incomplete+=("build failed (build.log)"); finish; }
cb="$PWD/$build/harness/collbench"
"$cb" --version >"$out/version.txt" 2>&1
# --version names what the build found: "CUDA: CUDA runtime X.Y", "NCCL: NCCL X.Y.Z" or "not built".
grep -q '^CUDA: CUDA runtime' "$out/version.txt" ||
  { incomplete+=("built without CUDA (version.txt)"); finish; }
nccl=no
grep -q '^NCCL: NCCL [0-9]' "$out/version.txt" && nccl=yes
[ "$nccl" = yes ] || incomplete+=("NCCL not built (nccl.h/libnccl not found beside CUDA)")

# --- CUDA tests ----------------------------------------------------------------
# ipc_cuda_test: every algorithm bit-exact on device buffers through CUDA-IPC,
# and NCCL exact on integers. NCCL refuses two ranks on one GPU, so with one
# GPU its test runs on one rank and the CUDA-IPC test on two sharing the GPU.
test_bin="$build/tests/ipc/ipc_cuda_test"
run_gtest() {  # NAME RANKS FILTER: runs the CUDA test binary, appends to tests.log
  local name=$1 ranks=$2 filter=$3 lim
  lim=$(left); [ "$lim" -gt 300 ] && lim=300
  echo "== $name: mpiexec -n $ranks ipc_cuda_test --gtest_filter=$filter" >>"$out/tests.log"
  timeout -k 10 "$lim" mpiexec -n "$ranks" "$test_bin" --gtest_filter="$filter" >>"$out/tests.log" 2>&1
}
expect_ok() {  # TEST: the gtest line of a test that ran and passed
  grep -q "^\[       OK \] IpcCuda\.$1" "$out/tests.log" || failures+=("CUDA test $1 did not pass (tests.log)")
}
log "CUDA tests, log in $out/tests.log"
: >"$out/tests.log"
if [ ! -x "$test_bin" ]; then
  failures+=("$test_bin was not built")
else
  if [ "$gpus" -ge 2 ]; then
    run_gtest all 2 'IpcCuda.*' || failures+=("CUDA tests exit status $?")
  else
    run_gtest cuda-ipc 2 'IpcCuda.*:-IpcCuda.Nccl*' || failures+=("CUDA-IPC test exit status $?")
    if [ "$nccl" = yes ]; then
      run_gtest nccl 1 'IpcCuda.Nccl*' || failures+=("NCCL test exit status $?")
    fi
  fi
  expect_ok EveryAlgorithmMatchesReferenceBitExactly
  [ "$nccl" = yes ] && expect_ok NcclMatchesReferenceOnIntegers
fi

# --- The sweep -----------------------------------------------------------------
# One rank per GPU. With one GPU the schedules run on two ranks sharing it (a
# single rank would exchange nothing through CUDA-IPC), and NCCL on one rank.
sched_ranks=$gpus; [ "$gpus" -eq 1 ] && sched_ranks=2
common=(--transport ipc --mem cuda --coll all -d float -o sum -b 8 -e 256M --time-budget 0.05 --timeout 60)
sweep() {  # NAME RANKS REQUIRED ARGS...: one verified run; REQUIRED=no lets NCCL refuse an algorithm
  local name=$1 ranks=$2 required=$3 lim rc
  shift 3
  lim=$(left)
  if [ "$lim" -lt 30 ]; then incomplete+=("$name: skipped, time budget spent"); return; fi
  [ "$lim" -gt 300 ] && lim=300
  log "sweep $name: $ranks rank(s), $*"
  echo "mpiexec -bind-to core -n $ranks collbench run ${common[*]} $* --csv $name.csv" >>"$out/commands.txt"
  timeout -k 15 "$lim" mpiexec -bind-to core -n "$ranks" "$cb" run "${common[@]}" "$@" \
    --csv "$out/$name.csv" >"$out/$name.txt" 2>&1
  rc=$?
  local rows wrong
  rows=0 wrong=0
  if [ -f "$out/$name.csv" ]; then
    read -r rows wrong < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wrong") w = i; next }
      { n++; if (w == 0 || $w != "0") bad++ } END { print n + 0, bad + 0 }' "$out/$name.csv")
  fi
  rows_all=$((rows_all + rows)); rows_ok=$((rows_ok + rows - wrong))
  if [ "$wrong" -gt 0 ] || [ "$rc" -eq 1 ]; then
    failures+=("$name: $wrong wrong row(s) ($name.txt)")
  elif [ "$rc" -ne 0 ] || [ "$rows" -eq 0 ]; then
    if [ "$required" = yes ]; then failures+=("$name: exit status $rc, $rows rows ($name.txt)")
    else echo "$name: not run here: $(grep -m 1 -i 'error\|nccl' "$out/$name.txt" | cut -c 1-160)" >>"$out/refused.txt"
    fi
  fi
  echo "$name,$ranks,$rc,$rows,$wrong" >>"$out/runs.csv"
}
: >"$out/commands.txt"; echo "name,ranks,exit,rows,wrong" >"$out/runs.csv"
sweep schedules "$sched_ranks" yes --algo ring,rhd,dbtree
if [ "$nccl" = yes ]; then
  sweep nccl "$gpus" yes --algo nccl
  # Each NCCL algorithm on a coarser grid (every size is a new communicator).
  # ring and tree exist everywhere; the others need NVLink SHARP, CollNet or
  # one rank per node, and NCCL refusing them is recorded, not a failure.
  for a in ring tree nvls nvlstree pat collnetdirect collnetchain; do
    req=no; case $a in ring|tree) req=yes ;; esac
    sweep "nccl-$a" "$gpus" "$req" --algo nccl --nccl-algo "$a" -f 8
  done
fi

# --- Plots (report.md: finish) --------------------------------------------------
csvs=()
for f in "$out"/schedules.csv "$out"/nccl.csv; do [ -s "$f" ] && csvs+=("$f"); done
if [ ${#csvs[@]} -gt 0 ]; then
  { head -n 1 "${csvs[0]}"; for f in "${csvs[@]}"; do tail -n +2 "$f"; done; } >"$out/sweep.csv"
  if timeout 120 "$cb" plot "$out/sweep.csv" >"$out/plot.log" 2>&1; then
    log "plots in $out/plots"
  else
    incomplete+=("plots failed (plot.log)")
  fi
fi
finish
