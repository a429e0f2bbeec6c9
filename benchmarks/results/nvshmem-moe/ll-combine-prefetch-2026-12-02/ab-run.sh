#!/usr/bin/env bash
# A/B of the ops library on one GPU, 2 PEs under MPS (development setting). Run from the repo root.
set -u
d=$PWD/.device; jar=$d/lib/backend-nvshmem-0.1.0-SNAPSHOT-linux-x86_64.jar
cp $jar /tmp/new.jar
python3 -c "import lzma,sys; open('/tmp/ops-old.so','wb').write(lzma.open(sys.argv[1]).read())" $d/ab/ops-old.so.xz
python3 - <<'PY'
import zipfile
so = 'dev/unicomm/backend/nvshmem/internal/linux-x86_64/libunicomm_nvshmem_ops.so'
with zipfile.ZipFile('/tmp/new.jar') as src, zipfile.ZipFile('/tmp/old.jar', 'w', zipfile.ZIP_DEFLATED) as dst:
    for i in src.infolist():
        if i.filename != so: dst.writestr(i, src.read(i.filename))
    dst.write('/tmp/ops-old.so', so)
PY
nv=$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nvshmem/lib | head -1)
export LD_LIBRARY_PATH="$nv:${LD_LIBRARY_PATH:-}" NVSHMEM_DISABLE_NVLS=1 UNICOMM_NVSHMEM_HOME=$(dirname $nv)
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog; nvidia-cuda-mps-control -d && echo "MPS started"
java=$d/jre/bin/java
cp="$d/test-classes:$(ls $d/lib/*.jar | tr '\n' ':')"
uc() { "$java" --enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.cachedir=/tmp/unicomm-javacpp -cp "$cp" dev.unicomm.cli.Main "$@"; }
use() { cp /tmp/$1.jar $jar; rm -rf /tmp/unicomm-javacpp; }
kit() { local v=$1 f=$OUT/kit-$1-${UNICOMM_NVSHMEM_MOE_TRANSPORT:-ls}.txt; echo "--- kit Moe ($v) $(date -u +%T)"; use $v; timeout 200 bash -c "$(declare -f uc); $(declare -p java cp); uc conformance --backend nvshmem -n 2 --suite Moe --timeout 60s" > $f 2>&1; echo "exit $?"; grep -iE "passed|failed|skipped" $f | tail -4; grep " FAILED " $f | cut -c1-300; }
bench() { echo "--- bench ll $1 ($2) $(date -u +%T)"; use $2; UNICOMM_NVSHMEM_MOE_SMS=64 timeout 150 bash -c "$(declare -f uc); $(declare -p java cp); uc bench moe --backend nvshmem -n 2 --mode ll --ll-iters 50 --gpu-time" > $OUT/bench-$1.txt 2> $OUT/bench-$1.log; echo "exit $?"; grep -E "^ll|GPU|split" $OUT/bench-$1.txt; grep -h "span" $OUT/bench-$1.log | sed 's/^\[[0-9]*\] //' | sort; }
kit new
for i in 1 2 3; do bench new$i new; bench old$i old; done
echo "--- graph (new)"; use new; NO_MPS=1 OUT=$OUT/graph GRAPH_RANKS=2 timeout 120 bash $d/gpu-run.sh -n 2 graph 2>&1 | grep -E "GRAPH|RESULT|failed" | head -8
echo quit | nvidia-cuda-mps-control
cp /tmp/new.jar $jar; cd $OUT && tar czf all.tgz --exclude=all.tgz . && find . -mindepth 1 ! -name all.tgz -delete
