#!/usr/bin/env bash
# Runs, on a machine with an NVIDIA GPU, from a folder made by scripts/gpu-stage.sh:
#   check  - the backend's own multi-process GPU check (GpuCheck) with 2 and 4 PEs
#   bench  - `unicomm bench rma --backend nvshmem` with the same-run C reference (bench/reference/rma_ref)
#   kit    - `unicomm conformance --backend nvshmem` with 2 and 4 PEs (KIT_RANKS)
# Several PEs share the GPU under MPS (started here, stopped at the end). NVLink multicast stays off.
# Tables and logs go to $OUT (default ./gpu-out); everything is also packed into $OUT/gpu-run.tgz.
#   layout - the C reference with its buffer at the heap start and 6 MiB in (where the Java one sits)
#   moe    - the kit's MoE rules with 2 and 4 PEs (MOE_KIT_RANKS), then `unicomm bench moe --backend nvshmem -n 2` with
#            DeepEP's shapes at 64 and 24 SMs per PE (MOE_SMS), each beside its same-run device copy bound
#   graph  - the stream-ordered low-latency MoE captured in a CUDA graph and replayed (MoeGraphCheck), 2 and 4 PEs
#   usage: gpu-run.sh [all|check|bench|kit|layout|moe|graph]...
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
steps="${*:-all}"
want() { [[ " $steps " == *" all "* || " $steps " == *" $1 "* ]]; }

nv="${NVSHMEM_LIB:-$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nvshmem/lib 2>/dev/null | head -1)}"
export LD_LIBRARY_PATH="$nv:${LD_LIBRARY_PATH:-}" NVSHMEM_DISABLE_NVLS=1
export UNICOMM_NVSHMEM_HOME="${UNICOMM_NVSHMEM_HOME:-$(dirname "$nv")}"
java="$here/jre/bin/java"
cp="$here/test-classes:$(ls "$here"/lib/*.jar | tr '\n' ':')"
jopts=(--enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.cachedir=/tmp/unicomm-javacpp -cp "$cp")
unicomm() { "$java" "${jopts[@]}" dev.unicomm.cli.Main "$@"; }

{ date -u; hostname; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d && echo "MPS started"
trap 'echo quit | nvidia-cuda-mps-control; echo "MPS stopped"' EXIT

# N ranks of a Java main class over a fresh file store; returns the number of ranks that failed.
job() {
  local n=$1 name=$2; shift 2
  local store; store="$(mktemp -d)"
  local pids=() fails=0
  for ((r = 0; r < n; r++)); do
    UNICOMM_RANK=$r UNICOMM_WORLD_SIZE=$n UNICOMM_FILE_STORE="$store" UNICOMM_TIMEOUT_S=${CHECK_TIMEOUT_S:-20} \
      timeout ${JOB_LIMIT_S:-150} "$@" > "$out/$name-rank$r.log" 2>&1 &
    pids+=($!)
  done
  for ((r = 0; r < n; r++)); do wait "${pids[$r]}" || fails=$((fails + 1)); done
  rm -rf "$store"
  return $fails
}

unicomm info 2>&1 | tee "$out/info.txt"

if want check; then
  for n in 2 4; do
    job $n check-${n}pe "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.GpuCheck
    echo "GPU check, $n PEs: $? ranks failed; passes per rank: $(grep -c '^PASS' "$out"/check-${n}pe-rank*.log | sed 's/.*://' | paste -sd' ')"
    grep -h '^FAIL\|^RESULT' "$out"/check-${n}pe-rank*.log | cut -c1-300 | head -20
  done 2>&1 | tee "$out/check.txt"
fi

# The stream-ordered low-latency MoE captured in a CUDA graph and replayed, vs the host-sequenced calls.
if want graph; then
  for n in ${GRAPH_RANKS:-2 4}; do
    job $n graph-${n}pe "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.MoeGraphCheck
    echo "MoE graph check, $n PEs: $? ranks failed"
    grep -h '^FAIL\|^RESULT\|^GRAPH' "$out"/graph-${n}pe-rank*.log | cut -c1-300 | head -20
  done 2>&1 | tee "$out/graph.txt"
fi

if want bench; then
  timeout ${BENCH_LIMIT_S:-300} "$java" "${jopts[@]}" dev.unicomm.cli.Main bench rma --backend nvshmem --reference "$here/bin/rma_ref" \
    --min-size 16 --factor 4 --max-size 256M --csv "$out/bench-rma-nvshmem.csv" > "$out/bench-rma-nvshmem.txt" 2> "$out/bench-rma.log"
  echo "bench: exit $?"; cat "$out/bench-rma-nvshmem.txt"; tail -5 "$out/bench-rma.log"
fi

# Does the buffer's place in the NVSHMEM heap change the C figures? (The Java buffer sits after ~6 MiB of scratch.)
if want layout; then
  for pad in 0 $((6 << 20)); do
    UNICOMM_REF_PAD=$pad NVSHMEM_SYMMETRIC_SIZE=$((768 << 20)) CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 \
      job 2 layout-$pad "$here/bin/rma_ref" $((1 << 20)),$((16 << 20)),$((64 << 20)),$((256 << 20))
    echo "C reference with $pad bytes allocated first:"; grep '_bw' "$out/layout-$pad-rank0.log"
  done 2>&1 | tee "$out/layout.txt"
fi

if want kit; then
  for n in ${KIT_RANKS:-2 4}; do
    timeout ${KIT_LIMIT_S:-420} "$java" "${jopts[@]}" dev.unicomm.cli.Main conformance --backend nvshmem -n $n --timeout ${KIT_TIMEOUT:-15s} \
      --json "$out/kit-nvshmem-${n}pe.json" --junit-xml "$out/kit-junit-${n}pe" ${KIT_SUITES:+--suite=$KIT_SUITES} > "$out/kit-nvshmem-${n}pe.txt" 2>&1
    echo "kit, $n PEs: exit $?"; tail -1 "$out/kit-nvshmem-${n}pe.txt"; grep -E ' FAILED ' "$out/kit-nvshmem-${n}pe.txt" | cut -c1-250
  done
fi

if want moe; then
  for n in ${MOE_KIT_RANKS:-2 4}; do
    timeout ${KIT_LIMIT_S:-300} "$java" "${jopts[@]}" dev.unicomm.cli.Main conformance --backend nvshmem -n $n --suite Moe --timeout ${KIT_TIMEOUT:-60s} \
      --json "$out/kit-moe-nvshmem-${n}pe.json" > "$out/kit-moe-nvshmem-${n}pe.txt" 2>&1
    echo "kit Moe, $n PEs: exit $?"; tail -1 "$out/kit-moe-nvshmem-${n}pe.txt"; grep -E ' FAILED ' "$out/kit-moe-nvshmem-${n}pe.txt" | cut -c1-400
  done
  for sms in ${MOE_SMS:-64 24}; do
    UNICOMM_NVSHMEM_MOE_SMS=$sms timeout ${MOE_BENCH_LIMIT_S:-240} "$java" "${jopts[@]}" dev.unicomm.cli.Main bench moe --backend nvshmem -n 2 \
      --iters ${MOE_ITERS:-20} --ll-iters ${MOE_LL_ITERS:-50} --csv "$out/bench-moe-nvshmem-${sms}sms.csv" \
      > "$out/bench-moe-nvshmem-${sms}sms.txt" 2> "$out/bench-moe-${sms}sms.log"
    echo "bench moe, $sms SMs per PE: exit $?"; cat "$out/bench-moe-nvshmem-${sms}sms.txt"; grep -v '^\[' "$out/bench-moe-${sms}sms.log" | tail -8
  done
  # Where the time goes: the same run with the kernels timed by CUDA events (MOEPROF,rank,kernel,median us,min us,samples).
  if [ -n "${MOE_PROFILE-1}" ]; then
    UNICOMM_NVSHMEM_MOE_PROFILE=true timeout ${MOE_BENCH_LIMIT_S:-240} "$java" "${jopts[@]}" dev.unicomm.cli.Main bench moe --backend nvshmem -n 2 \
      --iters 10 --ll-iters 20 --no-verify > "$out/bench-moe-nvshmem-profile.txt" 2> "$out/bench-moe-profile.log"
    echo "bench moe with kernel timing: exit $?"; grep -h 'MOEPROF' "$out/bench-moe-profile.log" | sed 's/^\[[0-9]*\] //' | sort -t, -k2,2n -k3 | tee "$out/moe-kernel-times.csv"
  fi
fi

# Few files come back from a lent machine: one archive with everything.
tmp_tgz="$(mktemp -u /tmp/gpu-run-XXXX).tgz"
( cd "$out" && tar czf "$tmp_tgz" . && find . -mindepth 1 ! -name '*.txt' -delete 2>/dev/null; find . -mindepth 1 -type d -empty -delete; mv "$tmp_tgz" gpu-run.tgz )
ls -la "$out"
