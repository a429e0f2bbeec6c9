#!/usr/bin/env bash
# Slurm across two test-bed hosts (issue #46): a private Slurm cluster (munged, slurmctld on node0, one slurmd
# per host, all on this machine's test bed) runs `srun -N2 -n4` of the README's ring program over backend ucx.
# Nothing sets MASTER_ADDR/MASTER_PORT: every rank derives the store's address from Slurm's variables. Prints
# each rank's Slurm variables, then the job's output; exit 0 only if all four ranks completed the ring.
# Needs root, slurm-wlm, munge, libucx0 and the distribution (scripts/build.sh). Everything it starts is
# stopped, and the bed removed, on exit; traffic stays between the bed's hosts.
#
#   scripts/testbed-srun.sh            output: see results/launch-srun-*/
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk25.sh
[ "$(id -u)" = 0 ] || { echo "testbed-srun: needs root (test-bed namespaces)" >&2; exit 2; }
for t in slurmctld slurmd munged srun; do
  command -v "$t" >/dev/null || { echo "testbed-srun: needs '$t' (apt-get install slurm-wlm munge)" >&2; exit 2; }
done
cp="$PWD/cli/target/unicomm-cli.jar:$PWD/cli/target/lib/*"
[ -f cli/target/unicomm-cli.jar ] || { echo "testbed-srun: build the distribution first (scripts/build.sh)" >&2; exit 2; }

bed=srun$((RANDOM % 100000))
work=$(mktemp -d /tmp/unicomm-srun.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  scripts/testbed.sh down --name "$bed" || true
  rm -rf "$work"
}
trap cleanup EXIT
scripts/testbed.sh up 2 --name "$bed" --ttl 300 --owner $$ >/dev/null
on() { local h=$1; shift; scripts/testbed.sh exec "$h" --name "$bed" -- "$@"; }

# Names resolve inside the bed only: each host gets its own /etc/hosts (a bind mount in its private mount namespace).
printf '127.0.0.1 localhost\n10.77.0.1 node0\n10.77.0.2 node1\n' > "$work/hosts"
for h in node0 node1; do on "$h" mount --bind "$work/hosts" /etc/hosts; done
# slurmd insists on a cgroup file system; a bed host's /sys is its own (its network namespace's), without one.
# Mounted in the host's private mount namespace only; with proctrack/linuxproc and task/none nothing is constrained.
for h in node0 node1; do
  on "$h" sh -c 'mount -t tmpfs cgroup-root /sys/fs/cgroup && for c in freezer cpuset memory devices; do
    mkdir -p /sys/fs/cgroup/$c && mount -t cgroup -o $c cgroup /sys/fs/cgroup/$c; done'
done

# munge with a key and socket of its own (a unix socket: every bed host reaches it through the file system).
head -c 1024 /dev/urandom > "$work/munge.key"; chmod 400 "$work/munge.key"
munged --force --key-file="$work/munge.key" --socket="$work/munge.sock" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed"
pids+=("$(cat "$work/munged.pid")")

mkdir -p "$work/state"
cat > "$work/slurm.conf" <<CONF
ClusterName=unicommbed
SlurmctldHost=node0(10.77.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool-%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/linear
SchedulerType=sched/builtin
ReturnToService=2
NodeName=node0 NodeAddr=10.77.0.1 CPUs=$(nproc) State=UNKNOWN
NodeName=node1 NodeAddr=10.77.0.2 CPUs=$(nproc) State=UNKNOWN
PartitionName=bed Nodes=node0,node1 Default=YES MaxTime=10 State=UP OverSubscribe=FORCE
CONF
echo "CgroupPlugin=cgroup/v1" > "$work/cgroup.conf"
export SLURM_CONF="$work/slurm.conf"
on node0 slurmctld -i; pids+=("$(cat "$work/slurmctld.pid" 2>/dev/null || true)")
for h in node0 node1; do on "$h" slurmd || { echo "testbed-srun: slurmd on $h did not start:" >&2; tail -n 5 "$work"/*.log >&2; exit 1; }; done
for i in $(seq 1 60); do   # at most ~30 s for both slurmds to register
  [ -f "$work/slurmd-node0.pid" ] && [ -f "$work/slurmd-node1.pid" ] && \
    on node0 sinfo -h -o '%T %D' 2>/dev/null | grep -qE '^idle 2$' && break
  sleep 0.5
done
for f in "$work"/slurmctld.pid "$work"/slurmd-*.pid; do [ -f "$f" ] && pids+=("$(cat "$f")"); done
on node0 sinfo -h -o '%T %D' | grep -qE '^idle 2$' || { echo "testbed-srun: the two slurmds did not register" >&2; tail -5 "$work"/*.log >&2; exit 1; }

echo "== $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), load $(cut -d' ' -f1-3 /proc/loadavg); Slurm $(srun --version | cut -d' ' -f2), bed $bed"
echo "== sinfo (from node0)"; on node0 sinfo
export UNICOMM_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
env_of_rank='echo "rank $SLURM_PROCID on $(hostname): SLURM_PROCID=$SLURM_PROCID SLURM_NTASKS=$SLURM_NTASKS SLURM_NODEID=$SLURM_NODEID SLURM_LOCALID=$SLURM_LOCALID SLURM_STEP_NODELIST=$SLURM_STEP_NODELIST SLURM_LAUNCH_NODE_IPADDR=$SLURM_LAUNCH_NODE_IPADDR MASTER_ADDR=${MASTER_ADDR:-unset} MASTER_PORT=${MASTER_PORT:-unset}"'
echo "== srun -N2 -n4 (what each rank is given)"
on node0 timeout 60 srun -N2 -n4 --kill-on-bad-exit=1 sh -c "$env_of_rank" | sort
echo "== srun -N2 -n4 java ... dev.unicomm.examples.Ring (no backend named: the job spans 2 hosts, so one that spans hosts is chosen; UCX over the bed's eth0)"
set +e
out=$(on node0 env -u MASTER_ADDR -u MASTER_PORT UCX_TLS=tcp UCX_NET_DEVICES=eth0 \
  timeout 180 srun -N2 -n4 --label --kill-on-bad-exit=1 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 \
  -XX:-UsePerfData -cp "$cp" dev.unicomm.examples.Ring 2>&1)
rc=$?
set -e
echo "$out" | sort -n
echo "== srun exit $rc"
[ "$rc" = 0 ] && [ "$(echo "$out" | grep -c ': PE [0-3] of 4: inbox from PE')" = 4 ] && echo "$out" | grep -q 'token came back as 6 (expected 6)'
