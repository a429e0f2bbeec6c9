#!/usr/bin/env bash
# A/B of one build against another on the GPU machine, from a folder made by scripts/gpu-stage.sh:
# the staged build ("new") against the same folder with one piece swapped ("old"), alternately, so that
# both see the same machine state. The old piece (staged with AB_OLD=<git revision> scripts/gpu-stage.sh):
#   ab/ops-old.so.xz   the CUDA ops library of that revision (swapped inside the natives jar), or
#   ab/<name>.jar      a jar of lib/ of that revision (swapped for lib/<name>.jar), e.g. the benchmarks jar.
# Steps: the kit's MoE rules on the new build (AB_KIT=0 skips), AB_PAIRS (3) pairs new/old of
# `unicomm bench moe --backend nvshmem -n PEs $AB_BENCH` (default "--mode ll --ll-iters 50 --gpu-time"),
# then the graph check on the new build (AB_GRAPH=0 skips). PEs: -n (default 2); more PEs than GPUs
# run under MPS (a development setting). UNICOMM_NVSHMEM_MOE_SMS (default 64) and UCN_MOE_TRACE pass on.
# Output in $OUT (default ./gpu-out), packed into ab.tgz (a lent-machine run returns few files).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/gpu-out}"; mkdir -p "$out"
pes=2; if [ "${1:-}" = "-n" ]; then pes="$2"; shift 2; fi
natives="$(ls "$here"/lib/backend-nvshmem-*-linux-x86_64.jar)"
old=(); for f in "$here"/ab/*.jar; do [ -e "$f" ] && old+=("$f"); done
[ -e "$here/ab/ops-old.so.xz" ] || ((${#old[@]})) || { echo "nothing to compare: stage with AB_OLD=<revision> scripts/gpu-stage.sh"; exit 2; }
nv="${NVSHMEM_LIB:-$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nvshmem/lib 2>/dev/null | head -1)}"
export LD_LIBRARY_PATH="$nv:${LD_LIBRARY_PATH:-}" NVSHMEM_DISABLE_NVLS=1 UNICOMM_NVSHMEM_HOME="$(dirname "$nv")"
export UNICOMM_NVSHMEM_MOE_SMS="${UNICOMM_NVSHMEM_MOE_SMS:-64}"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); ((gpus >= 1)) || gpus=1
if ((pes > gpus)); then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p /tmp/mps /tmp/mpslog; nvidia-cuda-mps-control -d && echo "MPS started ($pes PEs on $gpus GPU(s): a development setting)"
  trap 'echo quit | nvidia-cuda-mps-control' EXIT
fi
# The two builds, kept whole in /tmp: "new" as staged, "old" with the old pieces in place.
mkdir -p /tmp/ab-new /tmp/ab-old
cp "$natives" /tmp/ab-new/natives.jar; cp /tmp/ab-new/natives.jar /tmp/ab-old/natives.jar
for f in "${old[@]}"; do cp "$here/lib/$(basename "$f")" "/tmp/ab-new/$(basename "$f")"; cp "$f" "/tmp/ab-old/$(basename "$f")"; done
if [ -e "$here/ab/ops-old.so.xz" ]; then
  python3 - "$here/ab/ops-old.so.xz" /tmp/ab-new/natives.jar /tmp/ab-old/natives.jar <<'PY'
import lzma, sys, zipfile
so = 'dev/unicomm/backend/nvshmem/internal/linux-x86_64/libunicomm_nvshmem_ops.so'
with zipfile.ZipFile(sys.argv[2]) as src, zipfile.ZipFile(sys.argv[3], 'w', zipfile.ZIP_DEFLATED) as dst:
    for i in src.infolist():
        dst.writestr(i, lzma.open(sys.argv[1]).read() if i.filename == so else src.read(i.filename))
PY
fi
use() { # new | old: put that build's pieces in place; a fresh JavaCPP cache, so the swapped library is loaded
  cp "/tmp/ab-$1/natives.jar" "$natives"
  for f in "${old[@]}"; do cp "/tmp/ab-$1/$(basename "$f")" "$here/lib/$(basename "$f")"; done
  rm -rf /tmp/unicomm-javacpp
}
cp="$here/test-classes:$(ls "$here"/lib/*.jar | tr '\n' ':')"
unicomm=("$here/jre/bin/java" --enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.cachedir=/tmp/unicomm-javacpp -cp "$cp" dev.unicomm.cli.Main)
{
  if [ "${AB_KIT:-1}" != 0 ]; then
    use new; timeout 300 "${unicomm[@]}" conformance --backend nvshmem -n "$pes" --suite Moe --timeout 60s > "$out/kit-moe-new.txt" 2>&1
    rc=$?; echo "kit Moe (new), $pes PEs: exit $rc; $(grep -E '^[0-9]+ rules:' "$out/kit-moe-new.txt")"
  fi
  for ((i = 1; i <= ${AB_PAIRS:-3}; i++)); do
    for b in new old; do
      use $b; timeout 240 "${unicomm[@]}" bench moe --backend nvshmem -n "$pes" ${AB_BENCH:---mode ll --ll-iters 50 --gpu-time} > "$out/bench-$b$i.txt" 2> "$out/bench-$b$i.log"
      rc=$?; echo "--- $b $i ($(date -u +%T)): exit $rc"; grep -E '^(normal|ll) |GPU|split' "$out/bench-$b$i.txt"
      grep -h 'span:' "$out/bench-$b$i.log" | sed 's/^\[[0-9]*\] //' | sort
    done
  done
  if [ "${AB_GRAPH:-1}" != 0 ]; then
    use new; JOB_LIMIT_S=120 OUT="$out/graph" GRAPH_RANKS="$pes" NO_MPS=1 bash "$here/gpu-run.sh" -n "$pes" graph > "$out/graph.log" 2>&1
    echo "graph check (new): $(grep -c 'all checks passed' "$out/graph.log") of $pes ranks passed"
  fi
} 2>&1 | tee "$out/summary.txt"
use new
( cd "$out" && tar czf /tmp/ab.tgz . && find . -mindepth 1 -delete && mv /tmp/ab.tgz ab.tgz )
