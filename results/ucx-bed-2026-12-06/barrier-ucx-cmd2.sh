#!/usr/bin/env bash
# The moe part of scripts/ucx-bed-bench-commands.sh alone, with more timed iterations (as "command 2" of BENCHMARKS.md's
# "bench moe across the two hosts" paragraph): MoeBenchWorker 16 1024 128 4 32 NORMAL_ITERS LL_ITERS 1 1 normal,ll,
# plus RmaBenchWorker barrier ITERS; one rank per bed host, UCX_TLS=tcp UCX_NET_DEVICES=eth0. Usage: moe.sh CLASSPATH
set -euo pipefail
cd /work/wt-i47-barrier
cp=$1; normal=${2:-20}; ll=${3:-100}
. scripts/jdk25.sh
work=$(mktemp -d)
bed=ucxm$$; bed=${bed:0:10}
scripts/testbed.sh up 2 --name "$bed" --ttl 1800 --owner $$ >/dev/null
trap 'scripts/testbed.sh down --name "$bed"; rm -rf "$work"' EXIT
on() { local h=$1; shift; scripts/testbed.sh exec "node$h" --name "$bed" -- env UCX_TLS=tcp UCX_NET_DEVICES=eth0 "$@"; }
ranks() {
  local main=$1 heap=$2 opts=$3; shift 3
  local port=$((20000 + RANDOM % 10000)) token; token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  local pids=()
  for r in 0 1; do
    # shellcheck disable=SC2086
    on "$r" env UNICOMM_RANK=$r UNICOMM_WORLD_SIZE=2 UNICOMM_STORE=10.77.0.1:$port UNICOMM_TOKEN="$token" UNICOMM_BACKEND=ucx \
      UNICOMM_HEAP_SIZE="$heap" UNICOMM_TIMEOUT=300s \
      "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:-UsePerfData -Xmx1g $opts -cp "$cp" \
      "$main" "$@" > "$work/rank$r.out" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || { echo "$main failed:"; cat "$work/rank0.out" "$work/rank1.out"; }
  cat "$work/rank0.out"
}
echo "date $(date -u '+%Y-%m-%d %H:%M:%S UTC')  moe normal $normal ll $ll"
echo "loadavg before $(cat /proc/loadavg)"
ranks dev.unicomm.benchmarks.bench.RmaBenchWorker 64M "" barrier 2000 | grep '^BENCH' || true
ranks dev.unicomm.benchmarks.bench.MoeBenchWorker 512M "--add-modules jdk.incubator.vector" 16 1024 128 4 32 "$normal" "$ll" 1 1 normal,ll \
  | grep '^MOE' || true
echo "loadavg after $(cat /proc/loadavg)"
