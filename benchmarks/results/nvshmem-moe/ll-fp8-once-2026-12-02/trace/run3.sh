#!/usr/bin/env bash
# Phase notes of the low-latency kernels (UCN_MOE_TRACE), one GPU, 2 PEs under MPS (development setting).
set -u
d=$PWD/.device
nv=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nvshmem/lib | head -1)
export LD_LIBRARY_PATH="$nv:${LD_LIBRARY_PATH:-}" NVSHMEM_DISABLE_NVLS=1 UNICOMM_NVSHMEM_HOME=$(dirname $nv)
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog; nvidia-cuda-mps-control -d && echo "MPS started"
java=$d/jre/bin/java
cp="$d/test-classes:$(ls $d/lib/*.jar | tr '\n' ':')"
rm -f /tmp/moetrace.*
UCN_MOE_TRACE=/tmp/moetrace UNICOMM_NVSHMEM_MOE_SMS=64 timeout 200 "$java" --enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.cachedir=/tmp/unicomm-javacpp -cp "$cp" dev.unicomm.cli.Main bench moe --backend nvshmem -n 2 --mode ll --ll-iters 50 > $OUT/bench-ll-trace.txt 2> $OUT/bench-ll-trace.log
echo "exit $?"; grep -E "^ll|split|GPU" $OUT/bench-ll-trace.txt
python3 $d/ab/moe-trace-summary.py /tmp/moetrace.* > $OUT/trace-summary.txt 2>&1; cat $OUT/trace-summary.txt
echo quit | nvidia-cuda-mps-control
