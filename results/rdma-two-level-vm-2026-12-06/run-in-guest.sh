#!/bin/bash
# Runs inside the soft-RoCE VM (backend-rdma/src/test/vm/run-in-vm.sh, from the repository root after
# scripts/build.sh): `unicomm bench moe` and `unicomm bench collectives` on backend-rdma with 4 ranks, ranks 0,1
# on rxe0 (veth0) and 2,3 on rxe1 (veth1), seen by the job as two hosts of 2 ranks.
#
# Two hosts in one VM: unicomm agrees on hosts by hostname | boot id | network namespace (HostAgreement), and
# soft-RoCE works only in the VM's root network namespace, so the two "hosts" differ by hostname alone: each
# rank's JVM runs in a UTS namespace of its own with hostname vmhost-a (ranks 0,1) or vmhost-b (ranks 2,3).
# The bench starts its workers with its own java executable (JobSpec.currentJava()), so that executable's path
# is covered, after the bench has started from the real one, by a wrapper that enters the UTS namespace and
# runs the real java from a second mount of the JDK. All of it in a private mount namespace of the VM.
set -u
OUT=${1:?usage: run-in-guest.sh OUTPUT_DIR}
ROOT=$(pwd)
JH=$JAVA_HOME
export UNICOMM_RDMA_DEVICE=rxe0,rxe0,rxe1,rxe1 UNICOMM_RDMA_GID_INDEX=1 UNICOMM_RDMA_ACK_TIMEOUT=18
export UNICOMM_TIMEOUT=${UNICOMM_TIMEOUT:-300s}
cat > /run/java-by-host <<'WRAP'
#!/bin/bash
if [ -n "${UNICOMM_RANK:-}" ]; then
  h=vmhost-$([ "$UNICOMM_RANK" -lt 2 ] && echo a || echo b)
  exec unshare --uts /bin/bash -c 'echo "$0" > /proc/sys/kernel/hostname; exec /opt/realjdk/bin/java "$@"' "$h" "$@"
fi
exec /opt/realjdk/bin/java "$@"
WRAP
chmod +x /run/java-by-host
run() { # <label> <env assignments...> -- <unicomm args...>
  local label=$1; shift; local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  echo "== $label: $(cat /proc/uptime | cut -d' ' -f1) s uptime; UNICOMM_RDMA_DEVICE=$UNICOMM_RDMA_DEVICE ${envs[*]} unicomm $*"
  env "${envs[@]}" unshare -m --propagation private /bin/bash -c '
    mkdir -p /opt/realjdk && mount --bind "$0" /opt/realjdk && exec 9<"$0/bin/java" \
      && mount --bind /run/java-by-host "$0/bin/java" \
      && exec /proc/self/fd/9 --enable-native-access=ALL-UNNAMED -cp "$1/cli/target/unicomm-cli.jar" dev.unicomm.cli.Main "${@:2}"' \
    "$JH" "$ROOT" "$@" 2>&1 | tee "$OUT/$label.txt"
  echo "== $label: exit ${PIPESTATUS[0]}"
}
MOE=(bench moe --backend rdma -n 4 --tokens "${MOE_TOKENS:-32}" --mode normal --iters "${MOE_ITERS:-3}")
COLL=(bench collectives --backend rdma -n 4 --ops allreduce,allgather,reducescatter --min-size 64K --max-size 1M --factor 16 --seconds 0.3 --warmup 1)
run moe-flat UNICOMM_MOE_ALGORITHM=flat -- "${MOE[@]}"
run moe-hierarchical UNICOMM_MOE_ALGORITHM=hierarchical -- "${MOE[@]}"
run coll-flat UNICOMM_COLLECTIVES_TWO_LEVEL=false -- "${COLL[@]}"
run coll-two-level UNICOMM_COLLECTIVES_TWO_LEVEL=true -- "${COLL[@]}"
