#!/usr/bin/env bash
# Runs, on a machine with an NVIDIA GPU, from a folder made by scripts/gpu-stage.sh:
#   check    - the backend's own multi-process GPU check (GpuCheck)
#   bench    - `unicomm bench rma --backend nvshmem` (PE 0 -> PE 1) with the same-run C reference (benchmarks/reference/rma_ref)
#   roofline - benchmarks/reference/nvlink_ref: device copy, every pair one direction at a time, all PEs at once (all-SM
#              copy kernel and copy engines): the ceilings `bench moe --roofline` puts the MoE rows against
#   kit      - `unicomm conformance --backend nvshmem` (KIT_RANKS; KIT_SUITES / KIT_RULES pick suites / rules, comma lists;
#              under MPS the Faults suite runs last, one rule per job after a fresh MPS server (KIT_FAULT_RULES), KIT_FAULTS=0 leaves it out)
#   layout   - the C reference with its buffer at the heap start and 6 MiB in (where the Java one sits)
#   moe      - the kit's MoE rules (MOE_KIT_RANKS), then `unicomm bench moe --backend nvshmem -n MOE_RANKS --gpu-time
#              --roofline` with DeepEP's shapes at 64 and 24 SMs per PE (MOE_SMS; the low-latency kernels keep their
#              own default, the whole GPU per PE when PEs <= GPUs): host wall and CUDA-event GPU time beside the same-run floor;
#              MOE_ARGS adds options (e.g. "--mode ll"; "--gpu-start launch" for events as launched instead of each
#              operation queued behind a device barrier of all PEs, the default; "--ll-stream" for the low-latency FP8
#              pair timed as one, host-sequenced against stream-ordered)
#   wide     - more than 32 PEs (WIDE_RANKS, default 40) on the GPUs: the kit's MoE rules (WIDE_RULES picks), then `bench moe` on a small
#              shape (WIDE_ARGS) verified against the reference: the kernels' path past one 32-bit rank mask
#   shapes   - `bench moe --shape` for every preset (SHAPES) with SHAPES_RANKS PEs (default 2 8): normal BF16, FP8 and
#              cached dispatch, combine, low-latency dispatch (BF16, FP8) and combine, each verified against the
#              kit's reference (small token counts: SHAPES_ARGS); memory per PE beside DeepEP's size hints
#   graph    - the stream-ordered low-latency MoE captured in a CUDA graph and replayed (MoeGraphCheck)
#   elastic  - what survives a killed PE (ElasticGpuCheck under `unicomm run`, ELASTIC_RANKS): the last rank SIGKILLs
#              itself inside a low-latency MoE loop; the survivors report how their call ended and what still works;
#              then a fresh job of the survivors' count (the restart) reports its time to the first MoE iteration
#   mask     - active-rank masks in the MoE kernels (MaskGpuCheck, MASK_RANKS, default 3 and 4 PEs): the last rank leaves,
#              the survivors' normal BF16, low-latency and CUDA-graph calls are checked against the kit's reference with
#              the same drops; MASK,... rows time the calls with every rank active and with one inactive; then the last
#              rank SIGKILLs and SIGSTOPs itself inside a low-latency and a normal loop (MASK_FAULTS, elastic buffers,
#              timeout MASK_TIMEOUT_S=10 s): DETECT lines, the survivors' next 100 calls verified, MASK rows of the survivors
#   deepep   - DeepEP V1 (built here from DEEPEP_SRC) on bench moe's presets and SM counts: benchmarks/reference/deepep_moe.py
#   remote   - the kit's MoE rules with NVSHMEM_DISABLE_P2P=1 and a NIC-less remote transport (UCX, libfabric over TCP)
#   usage: gpu-run.sh [-n PEs] [all|check|bench|roofline|kit|layout|moe|graph|mask|wide|shapes|deepep|remote]...
# (wide, shapes, deepep and remote are not part of all: name them.)
# PEs (-n or PES): every step runs that many. Without it: one PE per GPU on a machine with several GPUs;
# on one GPU 2 and 4 PEs (a development setting). PE r uses GPU r % GPUs. MPS is started (and stopped at the
# end) only when PEs share a GPU (more PEs than GPUs), unless NO_MPS=1 (PEs then time-slice the GPU: slow, but each
# keeps its own CUDA context); one PE per GPU runs without it. NVLink multicast stays off.
# Tables and logs go to $OUT (default ./gpu-out); everything is also packed into $OUT/gpu-run.tgz.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
if [ "${1:-}" = "-n" ]; then PES="$2"; shift 2; fi
steps="${*:-all}"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
((gpus >= 1)) || gpus=1
if [ -n "${PES:-}" ]; then counts="$PES"; elif ((gpus > 1)); then counts="$gpus"; else counts="2 4"; fi
# Each list may be set empty to skip that part (e.g. MOE_KIT_RANKS= when the whole kit runs anyway).
KIT_RANKS="${KIT_RANKS-$counts}" MOE_KIT_RANKS="${MOE_KIT_RANKS-$counts}" GRAPH_RANKS="${GRAPH_RANKS-$counts}" CHECK_RANKS="${CHECK_RANKS-$counts}"
MOE_RANKS="${MOE_RANKS:-${counts%% *}}" ROOF_RANKS="${ROOF_RANKS:-${MOE_RANKS}}" ELASTIC_RANKS="${ELASTIC_RANKS-$counts}"
WIDE_RANKS="${WIDE_RANKS:-40}" SHAPES_RANKS="${SHAPES_RANKS:-2 8}" MASK_RANKS="${MASK_RANKS-${PES:-3 4}}"
want() { [[ " $steps " == *" all "* || " $steps " == *" $1 "* ]]; }
named() { [[ " $steps " == *" $1 "* ]]; }   # steps that `all` leaves out
most=0
for n in $KIT_RANKS $MOE_KIT_RANKS $GRAPH_RANKS $CHECK_RANKS $MOE_RANKS $ROOF_RANKS $ELASTIC_RANKS $MASK_RANKS 2; do ((n > most)) && most=$n; done
if named wide; then for n in $WIDE_RANKS; do ((n > most)) && most=$n; done; fi
if named shapes; then for n in $SHAPES_RANKS; do ((n > most)) && most=$n; done; fi

nv="${NVSHMEM_LIB:-$(ls -d /opt/torch/.venv/lib/python3*/site-packages/nvidia/nvshmem/lib 2>/dev/null | head -1)}"
export LD_LIBRARY_PATH="$nv:${LD_LIBRARY_PATH:-}" NVSHMEM_DISABLE_NVLS=1
export UNICOMM_NVSHMEM_HOME="${UNICOMM_NVSHMEM_HOME:-$(dirname "$nv")}"
java="$here/jre/bin/java"
cp="$here/test-classes:$(ls "$here"/lib/*.jar | tr '\n' ':')"
jopts=(--enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.cachedir=/tmp/unicomm-javacpp -cp "$cp")
unicomm() { "$java" "${jopts[@]}" dev.unicomm.cli.Main "$@"; }

{ date -u; hostname; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nvidia-smi topo -m; nproc
  echo "GPUs: $gpus; PEs per step: kit $KIT_RANKS, moe kit $MOE_KIT_RANKS, bench moe $MOE_RANKS, graph $GRAPH_RANKS, check $CHECK_RANKS"; } > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

# MPS only when PEs share a GPU (the bench rma job always runs 2 PEs).
if ((most > gpus)) && [ "${NO_MPS:-0}" != 1 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && echo "MPS started (up to $most PEs on $gpus GPU(s))"
  mps=1
  trap 'echo quit | nvidia-cuda-mps-control; echo "MPS stopped"' EXIT
elif ((most > gpus)); then
  echo "no MPS (NO_MPS=1): up to $most PEs time-slice $gpus GPU(s)"
else
  echo "no MPS: at most $most PEs on $gpus GPUs, one PE per GPU"
fi

# A PE that died leaves the MPS server refusing new clients (cudaSetDevice: cudaErrorDevicesUnavailable, seen
# 2026-12-02): after a step that may kill PEs, a fresh server for what follows. Nothing without MPS.
restart_mps() {
  [ -n "${mps:-}" ] || return 0
  echo quit | nvidia-cuda-mps-control; sleep 1; nvidia-cuda-mps-control -d && echo "MPS restarted after $1"
}

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
  for n in $CHECK_RANKS; do
    job $n check-${n}pe "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.GpuCheck
    echo "GPU check, $n PEs: $? ranks failed; passes per rank: $(grep -c '^PASS' "$out"/check-${n}pe-rank*.log | sed 's/.*://' | paste -sd' ')"
    grep -h '^FAIL\|^RESULT' "$out"/check-${n}pe-rank*.log | cut -c1-300 | head -20
  done 2>&1 | tee "$out/check.txt"
fi

# The stream-ordered low-latency MoE captured in a CUDA graph and replayed, vs the host-sequenced calls.
if want graph; then
  for n in $GRAPH_RANKS; do
    job $n graph-${n}pe "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.MoeGraphCheck
    echo "MoE graph check, $n PEs: $? ranks failed"
    grep -h '^FAIL\|^RESULT\|^GRAPH' "$out"/graph-${n}pe-rank*.log | cut -c1-300 | head -20
  done 2>&1 | tee "$out/graph.txt"
fi

# Active-rank masks in the MoE kernels (issue 50): a fixed inactive rank (the last), every surviving row checked against
# the kit's reference with the same drops, a CUDA graph replayed across the change, MASK timing rows (all active vs one inactive).
if want mask; then
  for n in $MASK_RANKS; do
    job $n mask-${n}pe "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.MaskGpuCheck
    echo "mask check, $n PEs (rank $((n - 1)) inactive after the all-active part): $? ranks failed; passes per rank: $(grep -c '^PASS' "$out"/mask-${n}pe-rank*.log | sed 's/.*://' | paste -sd' ')"
    grep -h '^FAIL\|^RESULT' "$out"/mask-${n}pe-rank*.log | cut -c1-300 | head -20
    grep -h '^MASK' "$out"/mask-${n}pe-rank*.log | sort -t, -k3,3 -k4,4 -k2,2n
    # A rank failing inside a loop (elastic buffers, timeout MASK_TIMEOUT_S): the survivors' call that finds it gone, then 100 verified calls.
    for mode in ${MASK_FAULTS-kill-ll kill-normal stop-ll stop-normal}; do
      CHECK_TIMEOUT_S=${MASK_TIMEOUT_S:-10} job $n mask-$mode-${n}pe "$java" "${jopts[@]}" dev.unicomm.backend.nvshmem.gpu.MaskGpuCheck $mode
      echo "mask $mode, $n PEs (rank $((n - 1)) fails): $? ranks failed (the failing rank counts as one); passes per rank: $(grep -c '^PASS' "$out"/mask-$mode-${n}pe-rank*.log | sed 's/.*://' | paste -sd' ')"
      grep -h '^FAIL\|^RESULT\|^DETECT\|^KILL\|^INFO' "$out"/mask-$mode-${n}pe-rank*.log | cut -c1-300 | head -24
      grep -h '^MASK' "$out"/mask-$mode-${n}pe-rank*.log | sort -t, -k2,2n
      restart_mps "mask $mode"
    done
  done 2>&1 | tee "$out/mask.txt"
fi

# What survives a killed PE (issue 23), under the real launcher; then the restart of the survivors as a new job.
if want elastic; then
  for n in $ELASTIC_RANKS; do
    run_opts=(run --backend nvshmem --cp "$here/test-classes" --wait-timeout ${ELASTIC_TIMEOUT:-10s}
              -J--enable-native-access=ALL-UNNAMED -J-Dorg.bytedeco.javacpp.cachedir=/tmp/unicomm-javacpp)
    timeout ${ELASTIC_LIMIT_S:-200} "$java" "${jopts[@]}" dev.unicomm.cli.Main "${run_opts[@]}" -n $n --kill-grace 120s -- dev.unicomm.backend.nvshmem.gpu.ElasticGpuCheck kill \
      > "$out/elastic-${n}pe.txt" 2>&1
    echo "elastic, $n PEs, last rank killed: launcher exit $?"
    grep -h 'ELASTIC' "$out/elastic-${n}pe.txt" | sed 's/^\[[0-9]*\] //' | cut -c1-400
    kill_ms=$(grep -ho 'KILL [0-9]*' "$out/elastic-${n}pe.txt" | awk '{print $2}' | head -1)
    for t in $(grep -ho 'FAILED_AT [0-9]*' "$out/elastic-${n}pe.txt" | awk '{print $2}'); do
      [ -n "$kill_ms" ] && echo "kill -> survivor's call ended: $((t - kill_ms)) ms"
    done
    m=$((n - 1)); ((m >= 1)) || continue
    s=$(date +%s%N)
    timeout ${ELASTIC_LIMIT_S:-200} "$java" "${jopts[@]}" dev.unicomm.cli.Main "${run_opts[@]}" -n $m --kill-grace 5s -- dev.unicomm.backend.nvshmem.gpu.ElasticGpuCheck clean \
      > "$out/elastic-restart-${m}pe.txt" 2>&1
    echo "restart as a new job of $m PEs: launcher exit $? after $((($(date +%s%N) - s) / 1000000)) ms (launcher start to all ranks done)"
    grep -h 'FIRST_MOE\|CONNECTED' "$out/elastic-restart-${m}pe.txt" | sed 's/^\[[0-9]*\] //'
  done 2>&1 | tee "$out/elastic.txt"
fi

# A reference program the staging left out (REFS, scripts/gpu-stage.sh): say so instead of failing later.
staged() { [ -x "$here/bin/$1" ] || { echo "$2 skipped: bin/$1 was not staged (REFS=$1 scripts/gpu-stage.sh)"; return 1; }; }

if want bench && staged rma_ref bench; then
  timeout ${BENCH_LIMIT_S:-300} "$java" "${jopts[@]}" dev.unicomm.cli.Main bench rma --backend nvshmem --reference "$here/bin/rma_ref" \
    --min-size ${RMA_MIN_SIZE:-16} --factor 4 --max-size ${RMA_MAX_SIZE:-256M} --csv "$out/bench-rma-nvshmem.csv" > "$out/bench-rma-nvshmem.txt" 2> "$out/bench-rma.log"
  echo "bench: exit $?"; cat "$out/bench-rma-nvshmem.txt"; tail -5 "$out/bench-rma.log"
fi

if want roofline && staged nvlink_ref roofline; then
  for n in $ROOF_RANKS; do
    NVSHMEM_SYMMETRIC_SIZE=$((1 << 30)) job $n roofline-${n}pe "$here/bin/nvlink_ref"
    echo "roofline program, $n PEs: $? ranks failed"
    grep -h '^roof' "$out"/roofline-${n}pe-rank*.log | sort -t, -k2,2 -k3,3n
  done 2>&1 | tee "$out/roofline.txt"
fi

# Does the buffer's place in the NVSHMEM heap change the C figures? (The Java buffer sits after ~6 MiB of scratch.)
if want layout && staged rma_ref layout; then
  for pad in 0 $((6 << 20)); do
    UNICOMM_REF_PAD=$pad NVSHMEM_SYMMETRIC_SIZE=$((768 << 20)) CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 \
      job 2 layout-$pad "$here/bin/rma_ref" $((1 << 20)),$((16 << 20)),$((64 << 20)),$((256 << 20))
    echo "C reference with $pad bytes allocated first:"; grep '_bw' "$out/layout-$pad-rank0.log"
  done 2>&1 | tee "$out/layout.txt"
fi

# One kit run of n PEs into kit-nvshmem-<n>pe<tag>.*; the remaining arguments select suites or rules.
kit_run() {
  local n=$1 tag=$2; shift 2
  timeout ${KIT_LIMIT_S:-420} "$java" "${jopts[@]}" dev.unicomm.cli.Main conformance --backend nvshmem -n $n --timeout ${KIT_TIMEOUT:-15s} \
    --json "$out/kit-nvshmem-${n}pe$tag.json" --junit-xml "$out/kit-junit-${n}pe$tag" "$@" > "$out/kit-nvshmem-${n}pe$tag.txt" 2>&1
  echo "kit$tag, $n PEs: exit $?"; tail -1 "$out/kit-nvshmem-${n}pe$tag.txt"; grep -E ' FAILED ' "$out/kit-nvshmem-${n}pe$tag.txt" | cut -c1-250
}

if want kit; then
  for n in $KIT_RANKS; do
    if [ -n "${mps:-}" ] && [ -z "${KIT_SUITES:-}${KIT_RULES:-}" ]; then
      # Under MPS a killed PE leaves the MPS server refusing new processes (cudaSetDevice:
      # cudaErrorDevicesUnavailable, seen 2026-12-02): the fault rules run alone, last.
      kit_run $n "" --skip-suite=Faults
      # One fault rule per job and a fresh MPS server before each: after the first kill MPS refuses new
      # processes for up to a minute, which the next rule's job start would wait out (the 76 s "killed in team
      # barrier" of 2026-12-06 was that wait: the survivor's call itself ended within a second of the kill).
      if [ "${KIT_FAULTS:-1}" != 0 ]; then
        for r in ${KIT_FAULT_RULES:-required_faults_rank_killed_in_barrier required_faults_rank_killed_in_team_barrier required_faults_rank_exits_in_barrier optional_faults_rank_killed_in_signal_wait}; do
          restart_mps "the rule before $r"; kit_run $n "-faults-$r" --suite=Faults --rule=$r
        done
      fi
    else
      kit_run $n "" ${KIT_SUITES:+--suite=$KIT_SUITES} ${KIT_RULES:+--rule=$KIT_RULES}
    fi
    # Any kit run may have killed PEs (the fault rules, or FaultInjection when named): the steps after it get a fresh MPS server.
    restart_mps "the kit"
  done
fi

if want moe; then
  for n in $MOE_KIT_RANKS; do
    timeout ${KIT_LIMIT_S:-300} "$java" "${jopts[@]}" dev.unicomm.cli.Main conformance --backend nvshmem -n $n --suite Moe --timeout ${KIT_TIMEOUT:-60s} \
      --json "$out/kit-moe-nvshmem-${n}pe.json" > "$out/kit-moe-nvshmem-${n}pe.txt" 2>&1
    echo "kit Moe, $n PEs: exit $?"; tail -1 "$out/kit-moe-nvshmem-${n}pe.txt"; grep -E ' FAILED ' "$out/kit-moe-nvshmem-${n}pe.txt" | cut -c1-400
  done
  # --gpu-time: a second job with CUDA events around each operation's kernels (MOEPROF lines in the log: every kernel).
  # The roofline needs bin/nvlink_ref (staged by default; not with REFS= or REFS=rma_ref): without it, no floor column.
  roof=(); staged nvlink_ref "the moe step's roofline" && roof=(--roofline "$here/bin/nvlink_ref")
  for sms in ${MOE_SMS:-64 24}; do
    UNICOMM_NVSHMEM_MOE_SMS=$sms timeout ${MOE_BENCH_LIMIT_S:-240} "$java" "${jopts[@]}" dev.unicomm.cli.Main bench moe --backend nvshmem -n $MOE_RANKS \
      --iters ${MOE_ITERS:-20} --ll-iters ${MOE_LL_ITERS:-50} ${MOE_ARGS:-} --gpu-time "${roof[@]}" --csv "$out/bench-moe-nvshmem-${sms}sms.csv" \
      > "$out/bench-moe-nvshmem-${sms}sms.txt" 2> "$out/bench-moe-${sms}sms.log"
    echo "bench moe, $MOE_RANKS PEs, $sms SMs per PE: exit $?"; cat "$out/bench-moe-nvshmem-${sms}sms.txt"; grep -v '^\[\|^roof\|MOEPROF' "$out/bench-moe-${sms}sms.log" | tail -8
    grep -h 'MOEPROF' "$out/bench-moe-${sms}sms.log" | sed 's/^\[[0-9]*\] //' | sort -t, -k2,2n -k3 > "$out/moe-kernel-times-${sms}sms.csv"
  done
fi

# Past 32 PEs (issue 51): the kit's MoE rules and a verified bench moe run on a small shape, every PE sharing the GPUs.
if named wide; then
  for n in $WIDE_RANKS; do
    timeout ${WIDE_KIT_LIMIT_S:-240} "$java" "${jopts[@]}" dev.unicomm.cli.Main conformance --backend nvshmem -n $n --suite Moe --timeout ${KIT_TIMEOUT:-90s} \
      ${WIDE_RULES:+--rule=$WIDE_RULES} --json "$out/kit-moe-nvshmem-${n}pe.json" > "$out/kit-moe-nvshmem-${n}pe.txt" 2>&1
    echo "kit Moe, $n PEs: exit $?"; tail -1 "$out/kit-moe-nvshmem-${n}pe.txt"; grep -E ' FAILED ' "$out/kit-moe-nvshmem-${n}pe.txt" | cut -c1-400
    timeout ${WIDE_BENCH_LIMIT_S:-180} "$java" "${jopts[@]}" dev.unicomm.cli.Main bench moe --backend nvshmem -n $n \
      ${WIDE_ARGS:---experts $((2 * n)) --hidden 1024 --topk 8 --tokens 128 --ll-tokens 16 --iters 1 --ll-iters 1} \
      > "$out/bench-moe-wide-${n}pe.txt" 2> "$out/bench-moe-wide-${n}pe.log"
    echo "bench moe, $n PEs: exit $?"; cat "$out/bench-moe-wide-${n}pe.txt"; grep -v '^\[' "$out/bench-moe-wide-${n}pe.log" | tail -5
  done 2>&1 | tee "$out/wide.txt"
fi

# Every model-shape preset (issue 51), every operation verified against the reference (verified column: yes).
# One PE count after the other: two jobs' kernels at once could keep each other's blocks from being resident
# (the kernels wait for their peers' blocks), so the counts never share the GPU.
if named shapes; then
  for n in $SHAPES_RANKS; do
    timeout ${SHAPES_LIMIT_S:-300} "$java" "${jopts[@]}" dev.unicomm.cli.Main bench moe --backend nvshmem -n $n \
      --shape ${SHAPES:-deepseek-v3,kimi-k2,qwen3-moe,top16,top22,h2048-e1024,top1,top32} \
      ${SHAPES_ARGS:---tokens 256 --ll-tokens 32 --iters 1 --ll-iters 1} --csv "$out/bench-moe-shapes-${n}pe.csv" \
      > "$out/bench-moe-shapes-${n}pe.txt" 2> "$out/bench-moe-shapes-${n}pe.log"
    echo "bench moe --shape, $n PEs: exit $?"; grep -E '^shape |verified|^normal|^ll |^memory' "$out/bench-moe-shapes-${n}pe.txt"
    grep -v '^\[' "$out/bench-moe-shapes-${n}pe.log" | grep -iE 'error|exception|failed|refuse' | head -5
  done 2>&1 | tee "$out/shapes.txt"
fi

# DeepEP V1 beside bench moe (issue 51), the same shapes and SM counts in the same lease: DeepEP is built here from
# its public source (DEEPEP_SRC: a tarball of github.com/deepseek-ai/DeepEP at tag v1.2.1, carried with the run; never
# part of the repository) with the machine's PyTorch and pip NVSHMEM, then benchmarks/reference/deepep_moe.py runs it.
if named deepep; then
  {
    src="${DEEPEP_SRC:-}"; dst="${DEEPEP_DIR:-/tmp/deepep}"
    if ls "$dst"/deep_ep_cpp*.so > /dev/null 2>&1; then echo "DeepEP already built in $dst (DEEPEP_DIR)"
    elif [ ! -f "$src" ]; then echo "deepep skipped: DEEPEP_SRC='$src' is not a file (a tarball of DeepEP's source)"; dst=""
    else
      rm -rf "$dst"; mkdir -p "$dst"; tar xf "$src" -C "$dst"
      s=$(date +%s)
      ( cd "$dst" && TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=${DEEPEP_JOBS:-16} timeout ${DEEPEP_BUILD_S:-420} python3 setup.py build_ext --inplace ) \
        > "$out/deepep-build.log" 2>&1
      echo "DeepEP build: exit $? in $(( $(date +%s) - s )) s ($(ls "$dst"/deep_ep_cpp*.so 2>/dev/null | wc -l) extension)"; tail -3 "$out/deepep-build.log"
    fi
    if [ -n "$dst" ]; then
      for mode in ${DEEPEP_MODES:-normal ll}; do
        PYTHONPATH="$dst" timeout ${DEEPEP_LIMIT_S:-300} python3 "$here/deepep_moe.py" --mode $mode --ranks ${DEEPEP_RANKS:-2} \
          ${DEEPEP_ARGS:-} --out "$out/deepep-moe.tsv" > "$out/deepep-$mode.log" 2>&1
        echo "DeepEP $mode: exit $?"; grep -E 'GPU mean|refused' "$out/deepep-$mode.log" | head -80
        grep -iE 'error|Traceback' "$out/deepep-$mode.log" | head -5
      done
    fi
  } 2>&1 | tee "$out/deepep.txt"
fi

# The kernels' path for peers that are not load/store reachable (issue 51): the kit's MoE rules with NVSHMEM's P2P
# transport off and a remote transport that needs no NIC (REMOTE_TRANSPORTS, default "ucx libfabric"; UCX's and
# libfabric's own libraries are carried in $here/remote-libs when staged). What NVSHMEM does is the result.
if named remote; then
  for tr in ${REMOTE_TRANSPORTS:-ucx libfabric}; do
    LD_LIBRARY_PATH="$here/remote-libs:$LD_LIBRARY_PATH" NVSHMEM_DISABLE_P2P=1 NVSHMEM_REMOTE_TRANSPORT=$tr NVSHMEM_DEBUG=${REMOTE_DEBUG:-WARN} \
      UCX_TLS=${REMOTE_UCX_TLS:-tcp,self} FI_PROVIDER=${REMOTE_FI_PROVIDER:-tcp} \
      timeout ${REMOTE_LIMIT_S:-150} "$java" "${jopts[@]}" dev.unicomm.cli.Main conformance --backend nvshmem -n 2 --suite Moe --timeout ${KIT_TIMEOUT:-30s} \
      ${REMOTE_RULES:+--rule=$REMOTE_RULES} > "$out/kit-moe-remote-$tr.txt" 2>&1
    echo "kit Moe, NVSHMEM_DISABLE_P2P=1, remote transport $tr: exit $?"; tail -2 "$out/kit-moe-remote-$tr.txt"
    grep -iE 'FAILED|error|transport|unavailable' "$out/kit-moe-remote-$tr.txt" | sort | uniq -c | sort -rn | head -12 | cut -c1-300
    # What NVSHMEM said is in the workers' logs (the kit's report keeps only their last lines): keep their tails.
    logs=$(grep -o 'worker logs: [^ ]*' "$out/kit-moe-remote-$tr.txt" | head -1 | cut -d' ' -f3)
    [ -d "$logs" ] && for f in "$logs"/*.log; do echo "== $tr: $(basename "$f")"; grep -v '^\s*at ' "$f" | tail -25 | cut -c1-300; done
    restart_mps "the $tr run"
  done 2>&1 | tee "$out/remote.txt"
fi

# Few files come back from a lent machine: one archive with everything.
tmp_tgz="$(mktemp -u /tmp/gpu-run-XXXX).tgz"
( cd "$out" && tar czf "$tmp_tgz" . && find . -mindepth 1 ! -name '*.txt' -delete 2>/dev/null; find . -mindepth 1 -type d -empty -delete; mv "$tmp_tgz" gpu-run.tgz )
ls -la "$out"
