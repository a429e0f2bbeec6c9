#!/usr/bin/env bash
# `bench collectives` across two test-bed hosts (scripts/testbed.sh; needs root) on backend-ucx, beside Open
# MPI's run of the same operations, sizes and timing method (benchmarks/reference/coll_mpi.c) between the same
# two hosts in the same run: one rank per host, unicomm over UCX_TLS=tcp UCX_NET_DEVICES=eth0, Open MPI over its
# TCP transport on eth0 (pml ob1, btl tcp,self), started by mpirun through the bed's remote-start agent.
# Prints CBENCH lines of both (op, ranks, bytes, time us, algbw, busbw GB/s) and the load before and after.
#
#   scripts/ucx-bed-collectives.sh [OPS] [SIZES(comma)] [SECONDS_PER_SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
ops=${1:-allreduce,allgather}; sizes=${2:-4096,65536,1048576,4194304}; secs=${3:-1}
command -v mpicc >/dev/null || { echo "needs Open MPI (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
. scripts/jdk25.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [ -z "${UCX_BENCH_CLASSPATH:-}" ]; then
  ./mvnw -B -ntp -o -q -pl backend-ucx,benchmarks -am compile
  ./mvnw -B -ntp -o -q -pl benchmarks dependency:build-classpath -Dmdep.outputFile="$work/cp" -Dmdep.includeScope=runtime >/dev/null
  UCX_BENCH_CLASSPATH=$root/benchmarks/target/classes:$root/backend-ucx/target/classes:$(tr ':' '\n' < "$work/cp" \
    | sed -E "s#^.*/dev/unicomm/([^/]+)/[^/]+/[^/]+\.jar\$#$root/\1/target/classes#" | paste -sd:)
fi
mpicc -O2 -o "$work/coll_mpi" benchmarks/reference/coll_mpi.c
bed=ucxc$$; bed=${bed:0:10}
scripts/testbed.sh up 2 --name "$bed" --ttl 1800 --owner $$ >/dev/null
trap 'scripts/testbed.sh down --name "$bed"; rm -rf "$work"' EXIT
on() { local h=$1; shift; scripts/testbed.sh exec "node$h" --name "$bed" -- env UCX_TLS=tcp UCX_NET_DEVICES=eth0 "$@"; }
IFS=, read -r -a sz <<< "$sizes"
min=${sz[0]}; max=${sz[${#sz[@]}-1]}
max_bytes=$(printf '%s\n' "${sz[@]}" | sort -n | tail -1)

echo "date $(date -u '+%Y-%m-%d %H:%M UTC')  host $(hostname) $(nproc) cores  ops $ops  sizes $sizes  ${secs}s per size"
echo "loadavg before $(cat /proc/loadavg)"
port=$((20000 + RANDOM % 10000)); token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'); pids=()
for r in 0 1; do
  on "$r" env UNICOMM_RANK=$r UNICOMM_WORLD_SIZE=2 UNICOMM_STORE=10.77.0.1:$port UNICOMM_TOKEN="$token" UNICOMM_BACKEND=ucx \
    UNICOMM_HEAP_SIZE=$(( 2 * max_bytes + (32 << 20) )) UNICOMM_TIMEOUT=120s \
    "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:-UsePerfData -Xmx512m -cp "$UCX_BENCH_CLASSPATH" \
    dev.unicomm.benchmarks.bench.CollectivesBenchWorker "$ops" "$sizes" "$secs" 1 > "$work/rank$r.out" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}" || { echo "unicomm collectives failed:"; cat "$work/rank0.out" "$work/rank1.out"; }
grep '^CBENCH' "$work/rank0.out" | sed 's/^/unicomm-ucx /' || true
# Open MPI: the same sizes (coll_mpi walks MIN..MAX by FACTOR; one run per size keeps the lists equal).
for s in "${sz[@]}"; do
  TESTBED_NAME=$bed on 0 timeout 300 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 --host 10.77.0.1:1,10.77.0.2:1 \
    --mca plm_rsh_agent "$root/scripts/testbed-rsh.sh" --mca oob_tcp_if_include eth0 --mca pml ob1 --mca btl tcp,self \
    --mca btl_tcp_if_include eth0 "$work/coll_mpi" "$ops" "$s" "$s" 2 "$secs" 2>&1 | grep '^CBENCH' | sed 's/^/openmpi-tcp /' || true
done
echo "loadavg after $(cat /proc/loadavg)"
echo "(CBENCH,op,ranks,bytes,time_us,algbw_GBps,busbw_GBps[,copy reference GBps on one host: not comparable across hosts])"
