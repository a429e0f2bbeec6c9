#!/usr/bin/env bash
# A/B of the benchmarks jar (bench moe normal mode) on one GPU, 2 PEs under MPS (development setting).
set -u
d=$PWD/.device; jar=$d/lib/benchmarks-0.1.0-SNAPSHOT.jar
nv=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nvshmem/lib | head -1)
export LD_LIBRARY_PATH="$nv:${LD_LIBRARY_PATH:-}" NVSHMEM_DISABLE_NVLS=1 UNICOMM_NVSHMEM_HOME=$(dirname $nv)
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog; nvidia-cuda-mps-control -d && echo "MPS started"
java=$d/jre/bin/java
cp="$d/test-classes:$(ls $d/lib/*.jar | tr '\n' ':')"
res=$OUT/res; mkdir -p $res
bench() { echo "--- bench normal $1 $(date -u +%T)"; cp $d/ab/bench-$2.jar $jar; UNICOMM_NVSHMEM_MOE_SMS=64 timeout 200 "$java" --enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.cachedir=/tmp/unicomm-javacpp -cp "$cp" dev.unicomm.cli.Main bench moe --backend nvshmem -n 2 --mode normal --iters 20 --gpu-time > $res/bench-$1.txt 2> $res/bench-$1.log; echo "exit $?"; grep -E "^normal|GPU|load" $res/bench-$1.txt; grep -h "bench: normal dispatch wall" $res/bench-$1.log | sed 's/^\[[0-9]*\] //' | awk -F, '{printf "%s ", $4} END {print ""}'; }
bench old1 old; bench new1 new; bench old2 old; bench new2 new
echo quit | nvidia-cuda-mps-control
cd $OUT && tar czf results.tgz res && rm -rf res
