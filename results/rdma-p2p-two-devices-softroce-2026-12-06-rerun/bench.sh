# runs inside the soft-RoCE VM, cwd = the worktree; initiator on rxe0 (veth0, 10.77.0.1), target on rxe1 (veth1, 10.77.0.2)
J="java --enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.cachedir=/tmp/jcc -jar cli/target/unicomm-cli.jar bench p2p"
T="--device rxe0 --gid-index 1 --target-device rxe1 --target-gid-index 1 --perftest --perftest-host 10.77.0.2 --event"
O=benchmarks/results/rdma-p2p-two-devices-softroce-2026-12-06-rerun
ibv_devices
echo "== run 1: batch 16 (DLSlime README's initiator example), 8 KiB - 4 MiB"
$J $T --batch 16 --duration 2 --block-sizes 8K,16K,32K,64K,128K,256K,512K,1M,2M,4M --csv $O/run1-batch16.csv
echo "== run 2: batch 1, 8 MiB - 64 MiB"
$J $T --batch 1 --duration 2 --buffer 64M --block-sizes 8M,16M,32M,64M --csv $O/run2-batch1.csv
echo "== run 3: batch 160 (DLSlime's cross-node table), 8 KiB - 256 KiB"
$J $T --batch 160 --duration 2 --block-sizes 8K,16K,32K,64K,128K,256K --csv $O/run3-batch160.csv
echo "== veth counters"
ip -s link show veth0 | sed -n 3,6p
