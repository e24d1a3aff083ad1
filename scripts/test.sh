#!/usr/bin/env bash
# README's test command: installs what is missing, builds, runs every test.
#
#   bash scripts/test.sh [meson test args]             ./build, what CI runs
#   bash scripts/test.sh --sanitize [meson test args]  ASan + UBSan, in ./build-asan
#   bash scripts/test.sh --tsan [meson test args]      ThreadSanitizer, in ./build-tsan
#
# The sanitizer builds are configured once and reused; they run the same
# suites, MPI included. Reports from inside MPICH/UCX (not instrumented, not
# ours) are suppressed by scripts/sanitizers/*.supp, each entry saying why.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer=""
case "${1:-}" in
  # Timeouts: ASan costs ~2-4x; TSan far more (sim_fast_path: 458 s against
  # its 120-s limit on this 2-core machine at load ~20, README's reliability section).
  --sanitize) sanitizer=address,undefined; dir=build-asan; slow=4; shift ;;
  --tsan) sanitizer=thread; dir=build-tsan; slow=10; shift ;;
esac
if [ -z "$sanitizer" ]; then
  bash scripts/build.sh
  exec meson test -C build --print-errorlogs "$@"
fi

bash scripts/install-deps.sh
if [ ! -f "$dir/build.ninja" ]; then
  # -O1 -g: readable reports at a bearable speed. b_lundef=false: sanitizer
  # runtimes resolve some symbols at load time. No CUDA: nvcc and the
  # sanitizer runtimes do not mix, and the CUDA tests need a GPU anyway.
  meson setup "$dir" -Db_sanitize="$sanitizer" -Db_lundef=false -Dbuildtype=debug \
    -Doptimization=1 -Dcuda=disabled >&2
fi
ninja -C "$dir" >&2

supp="$PWD/scripts/sanitizers"
# halt_on_error: a UBSan report fails the test instead of scrolling past.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
# UCX hooks mmap/munmap to track registered memory; under TSan (whose own
# interceptors sit there too) every MPI process then dies with SIGSEGV at
# exit, after a correct run.
export UCX_MEM_EVENTS=no
exec meson test -C "$dir" --print-errorlogs --timeout-multiplier "$slow" "$@"
