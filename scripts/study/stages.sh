# shellcheck shell=bash
# Sourced by scripts/study.sh and scripts/testbed/study.sh: runs a study's
# stages one by one, each in its own process group, with one progress line
# and a stage-weighted ETA, stopping the study on the first signal and never
# taking a stage for done before its output files exist whole.
#
#   run_stages OUT_DIR "NAME|WEIGHT_S|COMMAND|FILES_COMMAND" ...
#
# COMMAND (a shell function and its words) runs in the background with job
# control on, so it leads its own process group: a signal to the study (Ctrl-C
# reaches only the terminal's foreground group, which is the study's) is
# handled here, and the stage's whole group (mpiexec, every rank, a filter)
# is sent TERM. FILES_COMMAND prints the files the stage must leave; each has
# to exist, be non-empty and have no FILE.partial beside it. A stage whose
# files are already whole (--resume) is skipped.
#
# Exits 128 + signal on INT, TERM or HUP, the stage's status when it fails,
# and 1 when it exits 0 without its files (mpiexec's 0 after a signal).
# Each finished stage adds "NAME: S s, load L1 L5 L15" to OUT_DIR/durations.txt.

study_start=$(date +%s)
stage_pid=""
stage_label=""
study_out=""

# "m:ss", or "h:mm:ss" past an hour (harness/report/eta.cpp's clock_text).
clock_text() {
  local s=$1
  if [ "$s" -ge 3600 ]; then printf '%d:%02d:%02d' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
  else printf '%d:%02d' $((s / 60)) $((s % 60)); fi
}

# ---- progress line --------------------------------------------------------
# The ETA is harness/report/eta.hpp's rule over stages instead of
# configurations: each stage carries a predicted cost (its weight, seconds on
# an idle machine), and what is left is scaled by the measured pace,
#   ETA = (weight left) * elapsed / (weight done),
# so the weights need only be right relative to each other. Inside a stage
# the fraction done comes from collbench's "[k/n]" progress lines, within the
# part of the stage set by progress_part (a stage of several runs).

progress_tty=0
[ -t 2 ] && progress_tty=1
progress_cols=$( { [ "$progress_tty" = 1 ] && tput cols 2>/dev/null; } || echo 100)
progress_open=0
weight_total=0   # the study's predicted seconds
weight_done=0    # of the stages finished
weight_skipped=0 # of those a --resume found done
stage_weight=0
stage_index=0
stage_count=0

# Erases the rewritten line (terminal only) before other output.
progress_clear() {
  if [ "$progress_open" = 1 ]; then printf '\r\033[K' >&2; progress_open=0; fi
}

# Percent done and the ETA text for a fraction f (per mille) of this stage.
progress_text() {
  local f=$1 done_w measured_w elapsed eta
  done_w=$((weight_done * 1000 + stage_weight * f))  # in ms of predicted time
  # The pace counts only work done by this command: stages a --resume skipped
  # took no time here.
  measured_w=$((done_w - weight_skipped * 1000))
  elapsed=$(( $(date +%s) - study_start ))
  if [ "$measured_w" -gt 0 ] && [ "$elapsed" -gt 0 ]; then
    eta=$(( (weight_total * 1000 - done_w) * elapsed / measured_w ))
  else
    eta=$(( weight_total - done_w / 1000 ))  # no pace measured yet: the prediction
  fi
  [ "$eta" -ge 0 ] || eta=0
  echo "$((done_w / (weight_total * 10)))% · ETA $(clock_text "$eta")"
}

# In a stage of n runs, the next collbench progress covers run i (0-based).
part_lo=0; part_hi=1000
progress_part() { part_lo=$(($1 * 1000 / $2)); part_hi=$((($1 + 1) * 1000 / $2)); }

# Reads a stage's stderr: collbench's "[k/n] ..." progress lines become the
# study's one progress line (on a terminal, rewritten in place; otherwise
# left out, the stage lines carry the ETA), everything else passes through.
# A line "@part I N" (scripts/testbed/study.sh) calls progress_part.
progress_filter() {
  local line f text
  while IFS= read -r line; do
    if [[ $line =~ ^@part\ ([0-9]+)\ ([0-9]+)$ ]]; then
      progress_part "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    elif [[ $line =~ ^(map:\ )?\[([0-9]+)/([0-9]+)\]\  ]]; then
      [ "$progress_tty" = 1 ] || continue
      f=$((part_lo + (part_hi - part_lo) * BASH_REMATCH[2] / BASH_REMATCH[3]))
      text="study $stage_index/$stage_count $(progress_text "$f") | $line"
      printf '\r\033[K%s' "${text:0:$((progress_cols - 1))}" >&2
      progress_open=1
    else
      progress_clear
      printf '%s\n' "$line" >&2
    fi
  done
  progress_clear
}

# ---- stages ---------------------------------------------------------------

# Whether every file the stage must leave exists whole; prints the first that
# does not, with why.
stage_files_whole() {  # FILES_COMMAND
  local f list
  list=$(eval "$1") || { echo "its list of files failed"; return 1; }
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    if [ -e "$f.partial" ]; then echo "$f.partial is left (the run stopped before its end)"; return 1; fi
    if [ ! -s "$f" ]; then echo "$f is missing or empty"; return 1; fi
  done <<<"$list"
}

# Waits up to `limit` seconds for process group `pgid` to end, then kills it.
wait_group() {  # pgid limit_s
  local i
  for ((i = 0; i < $2 * 5; i++)); do
    kill -0 -- -"$1" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -KILL -- -"$1" 2>/dev/null || true
}

resume_hint() {
  log "every finished measurement is kept in $study_out"
  log "resume with: bash scripts/study.sh --resume $study_out"
}

stage_stopped() {  # signal number
  trap '' INT TERM HUP  # a second Ctrl-C must not cut the cleanup short
  if [ -n "$stage_pid" ]; then
    # The study's stderr is closed meanwhile: job control reports a job that
    # ends by a signal ("[1]+ Terminated ...") when it reaps it. The stage's
    # own lines (collbench's "interrupted") go to the stage's stderr.
    {
      kill -TERM -- -"$stage_pid" || true
      # The testbed's teardown (namespaces, daemon) needs longer than a sweep's stop.
      wait_group "$stage_pid" 60
      wait "$stage_pid" || true
    } 2>/dev/null
  fi
  progress_clear
  log "interrupted (signal $1) during stage $stage_index/$stage_count: $stage_label"
  resume_hint
  exit $((128 + $1))
}

run_stages() {  # OUT_DIR SPEC...
  study_out=$1; shift
  local spec name weight cmd files rc why stage_started
  stage_count=$#
  weight_total=0
  for spec in "$@"; do
    IFS='|' read -r name weight cmd files <<<"$spec"
    weight_total=$((weight_total + weight))
  done
  trap 'stage_stopped 2' INT
  trap 'stage_stopped 15' TERM
  trap 'stage_stopped 1' HUP
  trap - ERR
  set -m
  stage_index=0
  for spec in "$@"; do
    IFS='|' read -r name weight cmd files <<<"$spec"
    stage_index=$((stage_index + 1)); stage_label=$name; stage_weight=$weight
    if stage_files_whole "$files" >/dev/null; then
      log "[$stage_index/$stage_count] $name: already done"
      weight_done=$((weight_done + weight))
      weight_skipped=$((weight_skipped + weight))
      continue
    fi
    log "[$stage_index/$stage_count] $name ($(progress_text 0))"
    stage_started=$(date +%s)
    part_lo=0; part_hi=1000
    # The stage's own shell: no study traps (the study handles its signals),
    # errexit on, stdin closed (a background group reading the terminal stops).
    ( trap - INT TERM HUP ERR; set +m; eval "$cmd" ) </dev/null &
    stage_pid=$!
    rc=0
    wait "$stage_pid" || rc=$?
    stage_pid=""
    if [ "$rc" -ne 0 ]; then
      log "stage $stage_index/$stage_count failed (exit status $rc): $name"
      resume_hint
      exit "$rc"
    fi
    if ! why=$(stage_files_whole "$files"); then
      log "stage $stage_index/$stage_count ended with exit status 0 but $why: $name"
      log "(mpiexec's status is not trusted: MPICH's returns 0 after a signal to the ranks)"
      resume_hint
      exit 1
    fi
    weight_done=$((weight_done + weight))
    # What each stage took and under which load: the ETA's weights come from
    # such lines (docs/study.md).
    echo "$name: $(( $(date +%s) - stage_started )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" \
      >>"$study_out/durations.txt"
  done
  set +m
  trap - INT TERM HUP
}
