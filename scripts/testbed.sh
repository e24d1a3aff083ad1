#!/usr/bin/env bash
# A testbed cluster on one machine: N "hosts" as network namespaces, each with
# one veth into a bridge namespace, links shaped to a set one-way latency and
# bandwidth, driven by collbench through MPICH's ordinary multi-host launch.
#
#   scripts/testbed.sh up --hosts N --latency 500us --bandwidth 100Mbit [--ranks-per-host K]
#                         [--name NAME] [--dry-run]
#   scripts/testbed.sh run [--np P] [--ranks-per-host J] [--grace S] [--name NAME] -- <collbench args>
#   scripts/testbed.sh exec [--np P] [--ranks-per-host J] [--grace S] [--name NAME]
#                           [--env VAR=VALUE]... -- PROGRAM ARGS
#   scripts/testbed.sh status [--name NAME]
#   scripts/testbed.sh down [--name NAME]
#
# Accepted: --hosts 2..64, --latency 0..10s (us, ms or s), --bandwidth
# 1Mbit..10Gbit (bit, kbit, mbit, gbit), --ranks-per-host 1..64 with hosts x
# ranks-per-host <= 64 (run --ranks-per-host J: 1..K, J ranks on each host);
# up --dry-run prints the setting as up would build it, without root. exec
# runs any MPI program (an executable file, or a name on PATH) as run runs
# collbench, with --env settings given to every rank (LD_PRELOAD included).
# Anything else: one line, exit 2.
# Needs root. Details, the design and measured figures: scripts/testbed/README.md.
# `down`, a failing `up`, and a signal during `up` or `run` leave nothing
# behind: no namespace, veth, qdisc, iptables rule, daemon or MPI process
# (qdiscs, rules and veths live only inside the namespaces, so deleting the
# namespaces after killing their processes removes everything).
set -Eeuo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${CB_BUILD_DIR:-$root_dir/build}
state_base=/run/collbench-testbed
subnet=10.77.0          # private, exists only inside the testbed's namespaces
bridge_ip=$subnet.1     # the bridge namespace's address (mpiexec runs there)
host_ip() { echo "$subnet.$((10 + $1))"; }

die_usage() { echo "testbed: $*" >&2; exit 2; }
die() { echo "testbed: $*" >&2; exit 1; }

# ---- argument parsing -------------------------------------------------------

# The accepted ranges: a one-way latency of 0..10 s (cb-nfq-delay's
# --delay-us range; netem takes the same), and a bandwidth of 1 Mbit/s..10
# Gbit/s (the range scripts/testbed/README.md documents; below it a 9000 B
# frame takes over 72 ms to serialize).
# Both are checked here, up front, so a bad value gets one line and exit 2
# instead of a failure inside `up` after half the testbed is built.
max_latency_us=10000000
min_rate_bps=1000000
max_rate_bps=10000000000
# At most this many ranks in all (hosts x ranks per host): every rank of the
# testbed shares this machine's cores and memory, and `run --np` takes the
# same range; 64 single-rank hosts were the testbed's limit before.
max_ranks=64

# "500us", "2ms", "0.5ms", "1s", "0" -> microseconds (integer).
parse_latency() {
  local v=$1 num unit m
  [[ $v =~ ^([0-9]+(\.[0-9]+)?)(us|ms|s)?$ ]] ||
    die_usage "--latency '$v' is not a time (accepted: 0..10s as a number with us, ms or s, e.g. 500us, 2ms)"
  num=${BASH_REMATCH[1]}; unit=${BASH_REMATCH[3]:-us}
  case $unit in us) m=1 ;; ms) m=1000 ;; s) m=1000000 ;; esac
  # The range is checked in awk's floating point, and the value printed with
  # %.0f: mawk's %d stops at 2^31 - 1, and bash's tests at 2^63 - 1.
  awk -v n="$num" -v m="$m" -v hi="$max_latency_us" \
    'BEGIN { us = n * m; if (us > hi) exit 1; printf "%.0f\n", us }' ||
    die_usage "--latency '$v' is outside the accepted 0..10s"
}

# tc-style rates "100Mbit", "1gbit", "500kbit", "2.5Gbit" -> bits per second.
parse_rate() {
  local v=$1 num unit m
  [[ ${v,,} =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit)$ ]] ||
    die_usage "--bandwidth '$v' is not a rate (accepted: 1Mbit..10Gbit as a number with bit, kbit, mbit or gbit, e.g. 100Mbit)"
  num=${BASH_REMATCH[1]}; unit=${BASH_REMATCH[3]}
  case $unit in bit) m=1 ;; kbit) m=1000 ;; mbit) m=1000000 ;; gbit) m=1000000000 ;; esac
  awk -v n="$num" -v m="$m" -v lo="$min_rate_bps" -v hi="$max_rate_bps" \
    'BEGIN { bps = n * m; if (bps < lo || bps > hi) exit 1; printf "%.0f\n", bps }' ||
    die_usage "--bandwidth '$v' is outside the accepted 1Mbit..10Gbit"
}

parse_int() {  # flag value lo hi
  # At most 9 digits before comparing: bash's arithmetic wraps, and `[`
  # answers a longer number with its own "integer expression expected".
  [[ $2 =~ ^[0-9]{1,9}$ ]] && (( 10#$2 >= $3 && 10#$2 <= $4 )) ||
    die_usage "$1 '$2' is not an integer in $3..$4"
}

name=cbtb
cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
  up|run|exec|status|down) ;;
  -h|--help|help) sed -n '2,25p' "$0"; exit 0 ;;
  "") die_usage "missing command (accepted: up, run, exec, status, down)" ;;
  *) die_usage "unknown command '$cmd' (accepted: up, run, exec, status, down)" ;;
esac

hosts=""; latency=""; bandwidth=""; np=""; grace=10; job=(); dry_run=0; job_env=()
ranks_per_host=1; run_per_host=
while [ $# -gt 0 ]; do
  case "$cmd:$1" in
    *:--name) [ $# -ge 2 ] || die_usage "--name needs a value"
      [[ $2 =~ ^[a-z][a-z0-9]{0,7}$ ]] || die_usage "--name '$2' must be 1-8 of a-z0-9, starting with a letter"
      name=$2; shift 2 ;;
    up:--hosts) [ $# -ge 2 ] || die_usage "--hosts needs a value"
      parse_int --hosts "$2" 2 64; hosts=$2; shift 2 ;;
    up:--latency) [ $# -ge 2 ] || die_usage "--latency needs a value"
      latency=$(parse_latency "$2"); shift 2 ;;
    up:--bandwidth) [ $# -ge 2 ] || die_usage "--bandwidth needs a value"
      bandwidth=$(parse_rate "$2"); shift 2 ;;
    up:--ranks-per-host) [ $# -ge 2 ] || die_usage "--ranks-per-host needs a value"
      parse_int --ranks-per-host "$2" 1 "$max_ranks"; ranks_per_host=$((10#$2)); shift 2 ;;
    up:--dry-run) dry_run=1; shift ;;
    run:--ranks-per-host|exec:--ranks-per-host) [ $# -ge 2 ] || die_usage "--ranks-per-host needs a value"
      parse_int --ranks-per-host "$2" 1 "$max_ranks"; run_per_host=$((10#$2)); shift 2 ;;
    run:--np|exec:--np) [ $# -ge 2 ] || die_usage "--np needs a value"
      parse_int --np "$2" 1 64; np=$2; shift 2 ;;
    run:--grace|exec:--grace) [ $# -ge 2 ] || die_usage "--grace needs a value"
      parse_int --grace "$2" 1 3600; grace=$2; shift 2 ;;
    exec:--env) [ $# -ge 2 ] || die_usage "--env needs VAR=VALUE"
      [[ $2 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
        die_usage "--env '$2' is not VAR=VALUE (VAR: letters, digits and _, not starting with a digit)"
      job_env+=("$2"); shift 2 ;;
    run:--|exec:--) shift; job=("$@"); break ;;
    *) die_usage "unknown argument '$1' for '$cmd' (see scripts/testbed.sh --help)" ;;
  esac
done

if [ "$cmd" = up ]; then
  [ -n "$hosts" ] || die_usage "up needs --hosts N (2..64)"
  [ -n "$latency" ] || die_usage "up needs --latency (e.g. 500us)"
  [ -n "$bandwidth" ] || die_usage "up needs --bandwidth (e.g. 100Mbit)"
  (( hosts * ranks_per_host <= max_ranks )) ||
    die_usage "--hosts $hosts x --ranks-per-host $ranks_per_host is $((hosts * ranks_per_host)) ranks (accepted: at most $max_ranks in all)"
  per_host_text=""; [ "$ranks_per_host" -eq 1 ] || per_host_text=" x $ranks_per_host ranks"
  # The setting as `up` would build it, checked and converted, without root:
  # a script (or a test) validates its values before asking for namespaces.
  if [ "$dry_run" = 1 ]; then
    echo "testbed: '$name' would be: $hosts hosts$per_host_text, one-way latency ${latency} us, bandwidth ${bandwidth} bit/s (--dry-run: nothing built)"
    exit 0
  fi
fi

[ "$(id -u)" -eq 0 ] || die_usage "needs root (network namespaces, tc and iptables); run it as root"

state=$state_base/$name
ns_bridge=$name-br
ns_host() { echo "$name-h$1"; }
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
# For a process that outlives the script (the delay daemon): close every
# descriptor above 2 of the calling (sub)shell.
close_fds_above_2() {
  local fd
  for fd in /proc/self/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
  done
  return 0
}

# The testbed's namespaces that exist now (also half-built ones).
our_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-(br|h[0-9]+)\$" || true
}

# Kills every process inside our namespaces except `keep` (a pid), TERM then KILL.
kill_namespace_processes() {
  local keep=${1:-} ns pids pid tries
  for tries in 1 2 3 4 5 6 7 8 9 10 11; do
    pids=()
    for ns in $(our_namespaces); do
      for pid in $(ip netns pids "$ns" 2>/dev/null); do
        [ "$pid" = "$keep" ] || pids+=("$pid")
      done
    done
    [ ${#pids[@]} -eq 0 ] && return 0
    if [ "$tries" -le 10 ]; then kill -TERM "${pids[@]}" 2>/dev/null || true; sleep 0.2
    else kill -KILL "${pids[@]}" 2>/dev/null || true; sleep 0.2; fi
  done
}

teardown() {
  local ns
  kill_namespace_processes
  for ns in $(our_namespaces); do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$state"
  rmdir "$state_base" 2>/dev/null || true
  [ -z "$(our_namespaces)" ] || die "could not delete namespaces: $(our_namespaces | tr '\n' ' ')"
}

config() { sed -n "s/^$1=//p" "$state/config"; }

# ---- down / status ----------------------------------------------------------

if [ "$cmd" = down ]; then
  if [ ! -d "$state" ] && [ -z "$(our_namespaces)" ]; then
    echo "testbed: '$name' is not up; nothing to do" >&2; exit 0
  fi
  teardown
  echo "testbed: '$name' is down (namespaces, links, qdiscs, rules and processes removed)" >&2
  exit 0
fi

if [ "$cmd" = status ]; then
  [ -f "$state/up" ] || { echo "testbed: '$name' is not up"; exit 3; }
  n=$(config hosts)
  k=$(config ranks_per_host); k=${k:-1}
  echo "testbed '$name': $n hosts x $k ranks, one-way latency $(config latency_us) us, bandwidth $(config bandwidth_bps) bit/s, delay by $(config delay_by)"
  echo "  bridge namespace $ns_bridge ($bridge_ip); hostfile $state/hostfile"
  for i in $(seq 1 "$n"); do echo "  host $i: namespace $(ns_host "$i"), $(host_ip "$i") on eth0"; done
  if [ "$(config delay_by)" = nfqueue ]; then
    pid=$(cat "$state/delay.pid")
    if kill -0 "$pid" 2>/dev/null; then echo "  delay daemon: pid $pid, running"
    else echo "  delay daemon: pid $pid, NOT running (packets are dropped: run down, then up)"; fi
  fi
  rtt=$(in_ns "$(ns_host 1)" ping -c 3 -i 0.2 -q "$(host_ip 2)" 2>/dev/null |
        sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
  echo "  ping host 1 -> host 2: mean RTT ${rtt:-(no reply)} ms (expected about $(awk -v l="$(config latency_us)" 'BEGIN{print 2*l/1000}') ms)"
  exit 0
fi

# ---- up ---------------------------------------------------------------------

if [ "$cmd" = up ]; then
  if [ -e "$state" ] || [ -n "$(our_namespaces)" ]; then
    die_usage "'$name' is already up (scripts/testbed.sh down --name $name first)"
  fi
  for tool in ip tc ethtool unshare; do
    command -v $tool >/dev/null || die "'$tool' is missing (bash scripts/install-deps.sh)"
  done

  # Any failure or signal before the end of `up` removes what was built.
  up_done=0
  up_exit() {
    local s=$?
    [ "$up_done" = 1 ] && return
    trap - ERR INT TERM EXIT
    teardown
    echo "testbed: up failed (exit status $s); nothing is left behind" >&2
    exit "$s"
  }
  trap up_exit EXIT
  trap 'exit 1' ERR
  trap 'exit 130' INT
  trap 'exit 143' TERM
  mkdir -p "$state"

  ip netns add "$ns_bridge" 2>/dev/null || die "cannot create network namespaces here (ip netns add failed)"
  in_ns "$ns_bridge" ip link set lo up
  # Per-packet delay: netem where the kernel has it, else the NFQUEUE daemon.
  if in_ns "$ns_bridge" tc qdisc add dev lo root netem delay 1ms 2>/dev/null; then
    in_ns "$ns_bridge" tc qdisc del dev lo root
    delay_by=netem
  else
    delay_by=nfqueue
    daemon=$build_dir/scripts/testbed/cb-nfq-delay
    [ -x "$daemon" ] || die "this kernel has no netem and $daemon is not built (bash scripts/build.sh)"
    command -v iptables-legacy >/dev/null || die "iptables-legacy is missing (bash scripts/install-deps.sh)"
  fi

  in_ns "$ns_bridge" ip link add br0 type bridge
  in_ns "$ns_bridge" ip link set br0 mtu 9000
  in_ns "$ns_bridge" ip addr add "$bridge_ip/24" dev br0
  in_ns "$ns_bridge" ip link set br0 up

  rate=${bandwidth}bit
  bytes_per_s=$((bandwidth / 8))
  # tbf: a bucket of one jumbo frame (the smallest it allows; the first bytes
  # of a message still pass at once, which the delay daemon's serialization
  # corrects); a queue of 100 ms at the rate (at
  # least 1 MiB) so that incast in all-to-all queues instead of dropping.
  burst=10240
  limit=$((bytes_per_s / 10)); [ "$limit" -ge 1048576 ] || limit=1048576
  for i in $(seq 1 "$hosts"); do
    ns=$(ns_host "$i")
    ip netns add "$ns"
    in_ns "$ns" ip link set lo up
    # Both ends are created inside their namespaces: nothing touches the host's.
    ip link add "h$i" netns "$ns_bridge" type veth peer name eth0 netns "$ns"
    for end in "$ns_bridge:h$i" "$ns:eth0"; do
      ens=${end%%:*}; dev=${end#*:}
      in_ns "$ens" ip link set "$dev" mtu 9000
      in_ns "$ens" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1 ||
        in_ns "$ens" ethtool -K "$dev" gso off gro off >/dev/null
    done
    in_ns "$ns_bridge" ip link set "h$i" master br0
    in_ns "$ns_bridge" ip link set "h$i" up
    in_ns "$ns" ip addr add "$(host_ip "$i")/24" dev eth0
    in_ns "$ns" ip link set eth0 up
    in_ns "$ns" sysctl -qw net.ipv4.tcp_congestion_control=reno
    # Collectives idle between iterations; a restarted slow start would charge
    # the link's bandwidth with TCP's ramp-up.
    in_ns "$ns" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
    # Socket buffers that hold a whole message: the kernel then keeps the link
    # busy while a rank waits for a core (2 cores, up to 8 ranks, the links'
    # own emulation), instead of the link idling until UCX is progressed.
    in_ns "$ns" sysctl -qw net.ipv4.tcp_wmem="4096 1048576 67108864"
    in_ns "$ns" sysctl -qw net.ipv4.tcp_rmem="4096 1048576 67108864"
    in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
    in_ns "$ns_bridge" tc qdisc add dev "h$i" root tbf rate "$rate" burst "$burst" limit "$limit"
    if [ "$delay_by" = netem ]; then
      # One-way delay on the host's egress, netem's rate serializing each frame
      # (what cb-nfq-delay does otherwise), tbf under it; both ends shaped.
      in_ns "$ns" tc qdisc add dev eth0 root handle 1: netem delay "${latency}us" rate "$rate" limit 100000
      in_ns "$ns" tc qdisc add dev eth0 parent 1:1 handle 10: tbf rate "$rate" burst "$burst" limit "$limit"
    else
      in_ns "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst "$burst" limit "$limit"
    fi
  done
  in_ns "$ns_bridge" sysctl -qw net.ipv6.conf.all.disable_ipv6=1

  if [ "$delay_by" = nfqueue ]; then
    # Bridged IPv4 frames traverse iptables' FORWARD chain (br_netfilter), once
    # per packet between two hosts: exactly one delay per direction.
    in_ns "$ns_bridge" sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null ||
      die "the kernel lacks br_netfilter (net.bridge.bridge-nf-call-iptables) and netem: no way to delay packets"
    # The daemon outlives `up`, so it must keep none of the caller's descriptors
    # above 2: started under `flock LOCK scripts/testbed.sh up ...`, it would
    # otherwise hold LOCK for as long as the testbed stays up, and every other
    # command waiting on LOCK would wait for this testbed's `down`.
    ( close_fds_above_2
      exec ip netns exec "$ns_bridge" setsid "$daemon" --queue 0 --delay-us "$latency" \
        --rate-bps "$bandwidth" --realtime ) </dev/null >"$state/delay.log" 2>&1 &
    echo $! >"$state/delay.pid"
    for _ in $(seq 50); do
      grep -q . <(in_ns "$ns_bridge" cat /proc/net/netfilter/nfnetlink_queue 2>/dev/null) && break
      kill -0 "$(cat "$state/delay.pid")" 2>/dev/null || die "delay daemon failed: $(cat "$state/delay.log")"
      sleep 0.1
    done
    in_ns "$ns_bridge" iptables-legacy -w -A FORWARD -i br0 -o br0 -j NFQUEUE --queue-num 0
  fi

  # Hydra's hostfile (K rank slots per host: Hydra fills each host's slots
  # before the next, so ranks are numbered host by host, the block layout
  # collbench's hierarchical algorithms need) and its launcher: Hydra runs
  # `launcher [ssh flags] HOST COMMAND...`; ours enters HOST's namespace.
  for i in $(seq 1 "$hosts"); do echo "$(host_ip "$i"):$ranks_per_host"; done >"$state/hostfile"
  {
    echo '#!/bin/sh'
    echo '# Generated by scripts/testbed.sh: ssh stand-in that enters a testbed host.'
    echo 'while [ $# -gt 0 ]; do case "$1" in -[ilopFJ]) shift 2 ;; -*) shift ;; *) break ;; esac; done'
    echo 'host=$1; shift'
    echo 'case "$host" in'
    for i in $(seq 1 "$hosts"); do echo "  $(host_ip "$i")) ns=$(ns_host "$i") ;;"; done
    echo '  *) echo "testbed launcher: unknown host $host" >&2; exit 255 ;;'
    echo 'esac'
    # Each host's proxy (and the ranks it starts) in an IPC namespace of
    # its own, as on separate machines: UCX's shared-memory transports then
    # reach the ranks of the same host only (see `run`).
    echo 'exec ip netns exec "$ns" unshare --ipc /bin/sh -c "$*"'
  } >"$state/launcher"
  chmod +x "$state/launcher"
  printf 'hosts=%s\nranks_per_host=%s\nlatency_us=%s\nbandwidth_bps=%s\ndelay_by=%s\n' \
    "$hosts" "$ranks_per_host" "$latency" "$bandwidth" "$delay_by" >"$state/config"

  # The links must carry traffic before anyone measures over them.
  in_ns "$(ns_host 1)" ping -c 1 -W 5 "$(host_ip "$hosts")" >/dev/null ||
    die "host 1 cannot reach host $hosts over the testbed"
  touch "$state/up"
  up_done=1
  trap - ERR INT TERM EXIT
  echo "testbed: '$name' is up: $hosts hosts$per_host_text, one-way latency ${latency} us, bandwidth ${bandwidth} bit/s (delay by $delay_by)" >&2
  exit 0
fi

# ---- run / exec -------------------------------------------------------------

# exec's program, checked before the testbed is asked anything: an
# executable file, or a name found on PATH (resolved here, since the ranks
# start in the namespaces with a shell of their own).
if [ "$cmd" = exec ]; then
  [ ${#job[@]} -gt 0 ] || die_usage "exec needs '-- PROGRAM ARGS' (an MPI program)"
  if [[ ${job[0]} == */* ]]; then
    [ -f "${job[0]}" ] && [ -x "${job[0]}" ] ||
      die_usage "exec: '${job[0]}' is not an executable file"
    program=$(cd "$(dirname "${job[0]}")" && pwd)/$(basename "${job[0]}")
  else
    program=$(type -P -- "${job[0]}") ||
      die_usage "exec: '${job[0]}' is not a program on PATH (give its path)"
  fi
fi
[ -f "$state/up" ] || die_usage "'$name' is not up (scripts/testbed.sh up --hosts N --latency L --bandwidth R first)"
[ ${#job[@]} -gt 0 ] || die_usage "run needs '-- <collbench args>'"
n=$(config hosts)
k=$(config ranks_per_host); k=${k:-1}
per_host=${run_per_host:-$k}
[ "$per_host" -le "$k" ] || die_usage "--ranks-per-host $per_host exceeds the $k rank slots per host that are up"
np=${np:-$((n * per_host))}
[ "$np" -le $((n * per_host)) ] ||
  die_usage "--np $np exceeds the $n hosts x $per_host ranks that are up"
# Transports. This MPICH (ch4:ucx, no ch4 shared-memory module) sends every
# message through UCX. Ranks on one host talk through UCX's shared memory
# (posix, sysv: the host's IPC namespace, which the launcher gives each host,
# bounds where UCX finds them reachable), ranks on different hosts through
# UCX's TCP on the shaped link. cma stays off: it judges reachability by PID
# namespace, which all hosts share, and would read across hosts, off the
# link. MPICH learns the node of each rank from Hydra's per-host proxy
# (MPI_COMM_TYPE_SHARED). With one rank per host: TCP only, and
# MPIR_CVAR_NOLOCAL=1 keeps every rank remote, as before.
if [ "$per_host" -gt 1 ]; then transports=(-genv UCX_TLS tcp,self,posix,sysv)
else transports=(-genv UCX_TLS tcp,self -genv MPIR_CVAR_NOLOCAL 1); fi
if [ "$cmd" = run ]; then
  program=$build_dir/harness/collbench
  [ -x "$program" ] || die "$program is not built (bash scripts/build.sh)"
  job_args=("${job[@]}")
  rank_env=()
else
  # The announcing library goes first in the ranks' LD_PRELOAD, so a
  # preloaded interposer given with --env LD_PRELOAD runs behind it.
  announce=$build_dir/scripts/testbed/libcb-finalize-announce.so
  [ -f "$announce" ] || die "$announce is not built (bash scripts/build.sh)"
  preload=$announce
  rank_env=()
  for kv in "${job_env[@]}"; do
    if [[ $kv == LD_PRELOAD=* ]]; then preload=$preload:${kv#LD_PRELOAD=}
    else rank_env+=(-genv "${kv%%=*}" "${kv#*=}"); fi
  done
  # Set by each rank's shell just before it runs the program (below), so
  # neither mpiexec's proxy nor that shell loads the libraries.
  rank_env+=(-genv CB_TESTBED_PRELOAD "$preload")
  job_args=("${job[@]:1}")
fi
if [ "$(config delay_by)" = nfqueue ] && ! kill -0 "$(cat "$state/delay.pid")" 2>/dev/null; then
  die "the delay daemon is not running (scripts/testbed.sh down, then up)"
fi

jobdir=$state/job.$$
mkdir -p "$jobdir"
for i in $(seq 1 "$n"); do echo "$(host_ip "$i"):$per_host"; done >"$jobdir/hostfile"
on_signal() {
  trap - INT TERM ERR
  teardown
  echo "testbed: run interrupted; the testbed is torn down and nothing is left behind" >&2
  exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 1' ERR

keep=""; [ "$(config delay_by)" = nfqueue ] && keep=$(cat "$state/delay.pid")
# Each rank writes its exit status to done.<rank> just before MPI_Finalize
# (COLLBENCH_EXIT_FILE: collbench itself, harness/runtime/world.hpp; any
# other program through libcb-finalize-announce.so, exec above); see the
# finalize hang below.
# After the testbed ends a job stuck in MPI_Finalize, Hydra reports its killed
# processes at length; those lines say nothing the testbed's one line does not,
# so they are dropped (only then).
exec {job_err}> >(
  while IFS= read -r line; do
    if [ -e "$jobdir/killed" ] && [[ $line =~ ^(\[mpiexec@|\[proxy:|=====|=\ +(BAD|PID|EXIT|CLEANING|YOU)) ]]; then
      continue
    fi
    printf '%s\n' "$line" >&2
  done)
filter_pid=$!
ip netns exec "$ns_bridge" setsid mpiexec -launcher ssh -launcher-exec "$state/launcher" \
  -localhost "$bridge_ip" -f "$jobdir/hostfile" -n "$np" \
  "${transports[@]}" -genv UCX_NET_DEVICES eth0 \
  -genv UCX_RNDV_THRESH inf -genv UCX_WARN_UNUSED_ENV_VARS n -genv COLLBENCH_WAIT sleep \
  "${rank_env[@]}" \
  /bin/sh -c "[ -z \"\$CB_TESTBED_PRELOAD\" ] || export LD_PRELOAD=\"\$CB_TESTBED_PRELOAD\"; COLLBENCH_EXIT_FILE=\"$jobdir/done.\$PMI_RANK\" exec \"\$0\" \"\$@\"" \
  "$program" "${job_args[@]}" 2>&"$job_err" &
mpiexec_pid=$!
exec {job_err}>&-

# UCX over TCP can hang in MPI_Finalize with 4 or more ranks (UCX #8738).
# Once every rank has announced its status, the job gets 3 s to exit; once
# the first has, the rest get `grace` seconds. Then the job's processes are
# killed and the exit status is the worst announced one.
first_done=""; all_done=""; killed=0
while kill -0 "$mpiexec_pid" 2>/dev/null; do
  finished=$(compgen -G "$jobdir/done.*" | grep -vc '\.tmp$' || true)
  now=$(date +%s)
  [ -z "$first_done" ] && [ "$finished" -gt 0 ] && first_done=$now
  [ -z "$all_done" ] && [ "$finished" -ge "$np" ] && all_done=$now
  if { [ -n "$all_done" ] && [ $((now - all_done)) -ge 3 ]; } ||
     { [ -n "$first_done" ] && [ $((now - first_done)) -ge "$grace" ]; }; then
    echo "testbed: $finished of $np ranks finished their work; ending the job stuck in MPI_Finalize (UCX #8738 over TCP)" >&2
    touch "$jobdir/killed"
    kill_namespace_processes "$keep"
    killed=1
    break
  fi
  sleep 0.2
done
status=0
wait "$mpiexec_pid" || status=$?
kill_namespace_processes "$keep"
if [ "$killed" = 1 ]; then
  status=0
  for f in "$jobdir"/done.*; do
    s=$(cat "$f" 2>/dev/null || echo 1); [ "$s" -le "$status" ] || status=$s
  done
  # A rank that never announced did not finish its work.
  [ "$finished" -ge "$np" ] || { [ "$status" -ne 0 ] || status=1; }
fi
wait "$filter_pid" 2>/dev/null || true
rm -rf "$jobdir"
trap - INT TERM ERR
exit "$status"
