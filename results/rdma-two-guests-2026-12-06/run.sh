#!/usr/bin/env bash
# The two-guest run of issue 46 (its "fuller run"): two QEMU guests joined by a socket link on 127.0.0.1
# (scripts/vm-pair.sh), each with rxe0 on its own virtio NIC (A 10.78.0.1, B 10.78.0.2). In order:
#   1. perftest between the guests (server on A, client on B): ib_write_bw and ib_read_bw, 64 KiB and 1 MiB, 2 s each;
#   2. unicomm's transfer endpoints across the guests: bench p2p, target on A, initiator on B (DLSlime's
#      transfer_bench roles), endpoint infos exchanged through a folder both guests see;
#   3. the rdma Ring example, 2 ranks in each guest, through the multi-node launcher (store on A's address).
# From the repository root after scripts/build.sh:  results/rdma-two-guests-2026-12-06/run.sh
set -u
cd "$(dirname "$0")/../.."
export UNICOMM_TOKEN=${UNICOMM_TOKEN:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
export VMPAIR_PASSENV="UNICOMM_TOKEN ${VMPAIR_PASSENV:-}"
export VMPAIR_TIMEOUT=${VMPAIR_TIMEOUT:-900}
COMMON='
export UNICOMM_RDMA_DEVICE=rxe0 UNICOMM_RDMA_GID_INDEX=1 UNICOMM_TIMEOUT=180s
echo "$(hostname): $PAIR_NIC $(ip -br addr show "$PAIR_NIC" | tr -s " ") mtu $(cat /sys/class/net/$PAIR_NIC/mtu); rxe0 GID 1 $(cat /sys/class/infiniband/rxe0/ports/1/gids/1)"
step() { echo "== $(hostname) $* ($(cut -d" " -f1 /proc/uptime) s uptime)"; }
PT="-d rxe0 -x 1 -D 2 -F"
'
A="$COMMON"'
for op in write read; do for s in 65536 1048576; do
  step "perftest ib_${op}_bw server, $s B"; ib_${op}_bw $PT -s $s > /tmp/pt.out 2>&1 & sleep 1; pair_signal pt-$op-$s; wait; tail -n 3 /tmp/pt.out
done; done
mkdir -p /pair/p2p; step "bench p2p target"
timeout 300 java --enable-native-access=ALL-UNNAMED -jar cli/target/unicomm-cli.jar bench p2p --role target --exchange /pair/p2p \
  --device rxe0 --gid-index 1 --event --block-sizes 64K,1M --batch 16 --duration 2 --buffer 16M & pair_signal p2p-target; wait
step "ring, node 0 of 2"
bin/unicomm run --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr $PAIR_ADDR_A --backend rdma --timeout 300s -- dev.unicomm.examples.Ring
rc=$?; step "ring exit $rc"; exit $rc
'
B="$COMMON"'
for op in write read; do for s in 65536 1048576; do
  pair_wait pt-$op-$s 120 || exit 1
  step "perftest ib_${op}_bw client -> $PAIR_ADDR_A, $s B"; ib_${op}_bw $PT -s $s $PAIR_ADDR_A
done; done
pair_wait p2p-target 120 || exit 1; step "bench p2p initiator"
timeout 300 java --enable-native-access=ALL-UNNAMED -jar cli/target/unicomm-cli.jar bench p2p --role initiator --exchange /pair/p2p \
  --device rxe0 --gid-index 1 --event --block-sizes 64K,1M --batch 16 --duration 2 --buffer 16M || echo "bench p2p exit $?"
step "ring, node 1 of 2"
bin/unicomm run --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr $PAIR_ADDR_A --backend rdma --timeout 300s -- dev.unicomm.examples.Ring
rc=$?; step "ring exit $rc"; exit $rc
'
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit $(git rev-parse --short HEAD); load before: $(cat /proc/loadavg)"
scripts/vm-pair.sh "$A" "$B"
rc=$?
echo "load after: $(cat /proc/loadavg)"
exit $rc
