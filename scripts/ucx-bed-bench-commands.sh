#!/usr/bin/env bash
# The rank programs of `unicomm bench rma`, `bench collectives` and `bench moe` (RmaBenchWorker,
# CollectivesBenchWorker, MoeBenchWorker) on backend-ucx across two test-bed hosts (scripts/testbed.sh; needs
# root), one rank per host, UCX_TLS=tcp UCX_NET_DEVICES=eth0: the commands' own launchers start every rank on
# one host, so the ranks are started here, one per bed host, with the environment a launcher gives them.
# References in the same run: collectives beside Open MPI's run of the same operations, sizes and timing method
# (benchmarks/reference/coll_mpi.c) between the same two hosts over its TCP transport on eth0 (pml ob1, btl
# tcp,self; mpirun through the bed's remote-start agent); moe beside its own copy bound (the same bytes moved
# with plain RMA, every rank at once); rma's rows carry a one-host MemorySegment.copy reference that says
# nothing across hosts: scripts/ucx-bed-bench.sh compares RMA with ucx_perftest instead.
#
#   scripts/ucx-bed-bench-commands.sh [OPS] [SIZES(comma)] [SECONDS_PER_SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
ops=${1:-allreduce,allgather}; sizes=${2:-4096,65536,1048576,4194304}; secs=${3:-1}
command -v mpicc >/dev/null || { echo "needs Open MPI (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
. scripts/jdk25.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [ -z "${UCX_BENCH_CLASSPATH:-}" ]; then
  # One reactor run: the reactor resolves sibling modules (moe-reference, ...) that are not installed in ~/.m2; every
  # module writes the file in turn, benchmarks (which depends on the others) last.
  ./mvnw -B -ntp -o -q -pl backend-ucx,benchmarks -am compile dependency:build-classpath \
    -Dmdep.outputFile="$work/cp" -Dmdep.includeScope=runtime >/dev/null
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

ranks() { # MAIN HEAP JVM-OPTIONS ARGS...: one rank per host, rank 0's output on stdout
  local main=$1 heap=$2 opts=$3; shift 3
  local port=$((20000 + RANDOM % 10000)) token; token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  local pids=()
  for r in 0 1; do
    # shellcheck disable=SC2086
    on "$r" env UNICOMM_RANK=$r UNICOMM_WORLD_SIZE=2 UNICOMM_STORE=10.77.0.1:$port UNICOMM_TOKEN="$token" UNICOMM_BACKEND=ucx \
      UNICOMM_HEAP_SIZE="$heap" UNICOMM_TIMEOUT=300s \
      "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:-UsePerfData -Xmx1g $opts -cp "$UCX_BENCH_CLASSPATH" \
      "$main" "$@" > "$work/rank$r.out" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || { echo "$main failed:"; cat "$work/rank0.out" "$work/rank1.out"; }
  cat "$work/rank0.out"
}
echo "-- bench rma's rank program (rank 0 on node0 -> rank 1 on node1)"
ranks dev.unicomm.benchmarks.bench.RmaBenchWorker 64M "" rma 8,65536,1048576 2000 | grep '^BENCH' || true
echo "-- bench moe's rank program (experts 16, hidden 1024, 128 tokens/rank, top-4; low-latency 32 tokens)"
ranks dev.unicomm.benchmarks.bench.MoeBenchWorker 512M "--add-modules jdk.incubator.vector" 16 1024 128 4 32 5 10 1 1 normal,ll \
  | grep '^MOE' || true
# Open MPI: the same sizes (coll_mpi walks MIN..MAX by FACTOR; one run per size keeps the lists equal).
for s in "${sz[@]}"; do
  TESTBED_NAME=$bed on 0 timeout 300 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 --host 10.77.0.1:1,10.77.0.2:1 \
    --mca plm_rsh_agent "$root/scripts/testbed-rsh.sh" --mca oob_tcp_if_include eth0 --mca pml ob1 --mca btl tcp,self \
    --mca btl_tcp_if_include eth0 "$work/coll_mpi" "$ops" "$s" "$s" 2 "$secs" 2>&1 | grep '^CBENCH' | sed 's/^/openmpi-tcp /' || true
done
echo "loadavg after $(cat /proc/loadavg)"
echo "(CBENCH,op,ranks,bytes,time_us,algbw_GBps,busbw_GBps[,copy reference GBps on one host: not comparable across hosts])"
echo "(BENCH,op,ranks,bytes,iters,ns_per_op,...: bench rma's rows; MOE,op,rank,bytes,ns,boundNs,verified,...: bench moe's rows)"
