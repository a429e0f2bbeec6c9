#!/usr/bin/env bash
# Runs the NVSHMEM backend's GPU checks, the conformance kit (2 and 4 PEs) and the RMA benchmark
# (Java through the public API vs the same-run C reference) on a machine with an NVIDIA GPU,
# from a folder made by scripts/gpu-stage.sh. Several PEs share the GPU under MPS (started here,
# stopped at the end). Logs and tables go to $OUT (default ./gpu-out).
#   usage: gpu-run.sh [all|check|kit|bench]...
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

{ date -u; hostname; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d && echo "MPS started"
trap 'echo quit | nvidia-cuda-mps-control; echo "MPS stopped"' EXIT

# Starts N ranks of a Java main class (or, with "exe", a program) over a fresh file store; waits; returns failures.
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

"$java" "${jopts[@]}" -Dunicomm.backend=nvshmem dev.unicomm.backend.nvshmem.gpu.ProbeMain > "$out/probe.txt" 2>&1; cat "$out/probe.txt"

if want check; then
  for n in 2 4; do
    job $n check-${n}pe "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.GpuCheck
    echo "GPU check, $n PEs: exit $? ($(grep -c '^PASS' "$out"/check-${n}pe-rank*.log | paste -sd' ') passes per rank)"
    grep -h '^FAIL\|^RESULT' "$out"/check-${n}pe-rank*.log | head -40
  done
fi

if want bench; then
  # Same MPS share as the Java PEs get from the backend (100 / PEs on the GPU).
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 job 2 bench-c "$here/bin/rma_ref" $((256 << 20)); echo "C reference bench: exit $?"
  job 2 bench-java "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.RmaBench $((256 << 20)); echo "Java bench: exit $?"
  cat "$out"/bench-c-rank0.log "$out"/bench-java-rank0.log | grep -E '^(ref|java),' > "$out/bench-rma-nvshmem.csv"
  "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.BenchTable "$out/bench-rma-nvshmem.csv" | tee "$out/bench-rma-nvshmem.txt"
  for f in "$out"/bench-*-rank*.log; do grep -vE '^(ref|java),' "$f" | grep -iE 'error|exception|fail' | head -5; done
fi

# Every few seconds, what each kit worker's threads are doing (state, kernel wait channel): a hung
# worker's story without a debugger.
watch_workers() {
  while sleep ${WATCH_S:-7}; do
    for p in $(pgrep -f dev.unicomm.conformance.KitWorker); do
      { echo "== $(date +%T) worker $p"; for t in /proc/$p/task/*; do
          echo "$(cat $t/comm 2>/dev/null) $(awk '{print $3}' $t/stat 2>/dev/null) $(cat $t/wchan 2>/dev/null)"; done | sort | uniq -c; } >> "$out/kit-watch.log" 2>&1
      kill -QUIT $p 2>/dev/null
    done
  done
}

if want kit; then
  [ -n "${KIT_WATCH:-}" ] && { watch_workers & watcher=$!; }
  for n in ${KIT_RANKS:-2 4}; do
    timeout ${KIT_LIMIT_S:-420} "$java" "${jopts[@]}" ${KIT_JOPTS:-} dev.unicomm.backend.nvshmem.gpu.KitMain $n "$out" ${KIT_SUITES:-} > "$out/kit-run-${n}pe.log" 2>&1
    echo "kit, $n PEs: exit $?"; tail -1 "$out/kit-nvshmem-${n}pe.txt" 2>/dev/null; grep -E '  FAILED ' "$out/kit-nvshmem-${n}pe.txt" 2>/dev/null | cut -c1-220
  done
  [ -n "${watcher:-}" ] && kill $watcher
fi

# Few files come back from a lent machine: keep the tables at the top of $OUT, pack the logs.
( cd "$out" && tar czf logs.tgz --exclude=logs.tgz *.log kit-logs-* junit-* 2>/dev/null && rm -rf *.log kit-logs-* junit-* )
ls -la "$out"
