#!/usr/bin/env bash
# A multi-host test bed on one Linux machine (needs root): N "hosts", each with its own network namespace
# (one address on a private bridge), hostname (UTS), PID and IPC namespaces and a mount namespace whose
# /dev/shm and /proc are its own, so that hosts share nothing that real hosts would not share. The bridge
# lives in a namespace of its own: the machine's own network is never touched, and the hosts reach only
# each other (no route leaves the bed).
#
#   scripts/testbed.sh up N [--name BED] [--ttl SECONDS] [--owner PID]   hosts node0..node{N-1}
#   scripts/testbed.sh exec HOST [--name BED] -- CMD [ARGS...]            HOST: node1, 1 or 10.77.0.2
#   scripts/testbed.sh addr HOST [--name BED]                             the host's address
#   scripts/testbed.sh list                                               beds on this machine
#   scripts/testbed.sh down [--name BED]                                  remove a bed (idempotent)
#   scripts/testbed.sh sweep                                              remove beds whose owner has exited
#
# Host i is node$i at 10.77.0.$((i+1))/24. Every bed is removed by a watchdog when its TTL runs out
# (default 900 s) or its owner process exits (default: the caller of `up`), even if the caller is killed.
set -euo pipefail

STATE=/run/unicomm-testbed
SUBNET=10.77.0
MAX_HOSTS=16

die() { echo "testbed: $*" >&2; exit 1; }
need_root() {
  [ "$(id -u)" = 0 ] || die "needs root (network, UTS, PID and mount namespaces); run as root"
  for t in ip unshare nsenter; do command -v "$t" >/dev/null || die "needs '$t' (util-linux, iproute2)"; done
}

cmd=${1:-}; [ -n "$cmd" ] && shift
bed=${TESTBED_NAME:-uctb}; ttl=900; owner=$PPID; hosts=""; host=""
while [ $# -gt 0 ]; do
  case "$1" in
    --name) bed=$2; shift 2 ;;
    --ttl) ttl=$2; shift 2 ;;
    --owner) owner=$2; shift 2 ;;
    --) shift; break ;;
    *) if [ "$cmd" = up ] && [ -z "$hosts" ]; then hosts=$1; shift
       elif [ "$cmd" != up ] && [ -z "$host" ]; then host=$1; shift
       else break; fi ;;
  esac
done
[[ "$bed" =~ ^[a-z][a-z0-9]{0,9}$ ]] || die "bed name must be 1-10 lower-case letters or digits starting with a letter, got '$bed'"
dir=$STATE/$bed

host_index() { # node3 | 3 | 10.77.0.4 -> 3
  local h=$1
  case "$h" in
    node*) h=${h#node} ;;
    "$SUBNET".*) h=$(( ${h##*.} - 1 )) ;;
  esac
  [[ "$h" =~ ^[0-9]+$ ]] || die "unknown host '$1' (node0.., an index or an address $SUBNET.x)"
  [ -f "$dir/hosts" ] || die "no bed '$bed' is up (scripts/testbed.sh up N --name $bed)"
  [ "$h" -lt "$(cat "$dir/hosts")" ] || die "bed '$bed' has $(cat "$dir/hosts") hosts; there is no host '$1'"
  echo "$h"
}

down() {
  local b=$1 d=$STATE/$1
  if [ -d "$d" ]; then
    for f in "$d"/h*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || true; done
    [ -f "$d/watchdog" ] && [ "$(cat "$d/watchdog")" != "$$" ] && kill "$(cat "$d/watchdog")" 2>/dev/null || true
  fi
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$b-(h[0-9]+|sw)$" || true); do
    ip netns delete "$ns" 2>/dev/null || true
  done
  umount "$d/proc" 2>/dev/null || true
  rm -rf "$d"
}

case "$cmd" in
  up)
    need_root
    [[ "$hosts" =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le $MAX_HOSTS ] || die "up needs a host count 1..$MAX_HOSTS, got '${hosts}'"
    [[ "$ttl" =~ ^[0-9]+$ ]] && [ "$ttl" -ge 1 ] || die "--ttl must be a number of seconds, got '$ttl'"
    [ -d "$dir" ] && die "bed '$bed' is already up (scripts/testbed.sh down --name $bed)"
    down "$bed"   # leftovers of a bed whose state was lost
    mkdir -p "$dir/proc"; echo "$owner" > "$dir/owner"; echo "$hosts" > "$dir/hosts"
    # The machine's /proc, mounted before the hosts exist, so that each host's copy of it can name the
    # other hosts' namespaces: `exec` works from inside a host too (mpirun's remote-start agent needs it).
    mount -t proc proc "$dir/proc"
    trap 'down "$bed"' EXIT   # a failed start leaves nothing
    ip netns add "$bed-sw"
    ip -n "$bed-sw" link set lo up
    ip -n "$bed-sw" link add br0 type bridge
    ip -n "$bed-sw" link set br0 up
    for ((i = 0; i < hosts; i++)); do
      ns=$bed-h$i
      ip netns add "$ns"
      ip -n "$ns" link set lo up
      ip -n "$ns" link add eth0 type veth peer name p$i netns "$bed-sw"
      ip -n "$bed-sw" link set p$i master br0 up
      ip -n "$ns" addr add "$SUBNET.$((i + 1))/24" dev eth0
      ip -n "$ns" link set eth0 up
      # The host's other namespaces live as long as this holder (PID 1 of its PID namespace).
      ip netns exec "$ns" unshare --uts --ipc --pid --mount --fork --mount-proc --propagation private \
        sh -c "hostname node$i && mount -t tmpfs -o mode=1777,size=50% tmpfs /dev/shm && exec sleep $ttl" \
        </dev/null >/dev/null 2>&1 &
      starter=$!
      for ((t = 0; t < 100; t++)); do
        holder=$(pgrep -P "$starter" 2>/dev/null | head -n 1 || true)
        if [ -n "$holder" ] && [ "$(nsenter -t "$holder" --uts hostname 2>/dev/null)" = "node$i" ] \
           && [ "$(stat -L -c %d "/proc/$holder/root/dev/shm" 2>/dev/null)" != "$(stat -L -c %d /dev/shm)" ]; then break; fi
        holder=""; sleep 0.05
      done
      [ -n "$holder" ] || die "host node$i did not start its namespaces within 5 s"
      echo "$holder" > "$dir/h$i.pid"
    done
    # The watchdog outlives a killed caller: it removes the bed at the TTL or when the owner is gone.
    setsid bash -c "end=\$((SECONDS + $ttl)); while [ \$SECONDS -lt \$end ] && kill -0 $owner 2>/dev/null; do sleep 1; done; exec '$0' down --name '$bed'" \
      </dev/null >/dev/null 2>&1 &
    echo $! > "$dir/watchdog"
    trap - EXIT
    for ((i = 0; i < hosts; i++)); do echo "node$i $SUBNET.$((i + 1))"; done
    ;;
  exec)
    need_root
    [ -n "$host" ] || die "exec needs a host: scripts/testbed.sh exec node0 -- CMD"
    [ $# -gt 0 ] || die "exec needs a command after the host: scripts/testbed.sh exec $host -- CMD"
    i=$(host_index "$host")
    ns=$dir/proc/$(cat "$dir/h$i.pid")/ns
    [ -e "$ns/uts" ] || die "host node$i of bed '$bed' has no namespaces any more (its holder exited; scripts/testbed.sh down --name $bed)"
    if [ "${TESTBED_FROM_HOST:-0}" = 1 ]; then
      # Linux lets a process enter only PID namespaces below its own: from inside another host (a launcher's
      # remote-start agent, testbed-rsh.sh) the command gets the host's other namespaces and a PID namespace
      # of its own, with a /proc that shows it (the JVM finds itself through /proc/self).
      exec nsenter --net="$ns/net" --uts="$ns/uts" --ipc="$ns/ipc" --mount="$ns/mnt" --wdns="$PWD" -- \
        unshare --pid --fork --mount-proc -- "$@"
    fi
    exec nsenter --net="$ns/net" --uts="$ns/uts" --ipc="$ns/ipc" --pid="$ns/pid" --mount="$ns/mnt" --wdns="$PWD" -- "$@"
    ;;
  addr)
    [ -n "$host" ] || die "addr needs a host"
    i=$(host_index "$host"); echo "$SUBNET.$((i + 1))"
    ;;
  list)
    for d in "$STATE"/*/; do [ -d "$d" ] && echo "$(basename "$d") hosts=$(cat "$d/hosts") owner=$(cat "$d/owner")"; done 2>/dev/null || true
    ;;
  down)
    need_root; down "$bed"
    ;;
  sweep)
    need_root
    for d in "$STATE"/*/; do
      [ -d "$d" ] || continue
      kill -0 "$(cat "$d/owner" 2>/dev/null || echo 0)" 2>/dev/null || down "$(basename "$d")"
    done
    ;;
  *) die "usage: scripts/testbed.sh up N | exec HOST -- CMD | addr HOST | list | down | sweep  [--name BED]" ;;
esac
