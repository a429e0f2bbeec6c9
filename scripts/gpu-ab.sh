#!/usr/bin/env bash
# A/B of one build against another on the GPU machine, from a folder made by scripts/gpu-stage.sh:
# the staged build ("new") against the same folder with one piece swapped ("old"), alternately, so that
# both see the same machine state. The old piece (staged with AB_OLD=<git revision> scripts/gpu-stage.sh):
#   ab/ops-old.so.xz   the CUDA ops library of that revision (swapped inside the natives jar), or
#   ab/<name>.jar      a jar of lib/ of that revision (swapped for lib/<name>.jar), e.g. the benchmarks jar.
# Each side runs gpu-run.sh's moe step (bench moe --gpu-time; MOE_SMS default 64, MOE_ITERS, MOE_LL_ITERS):
# the kit's MoE rules on the first new run (AB_KIT=0 skips), then AB_PAIRS (3) pairs new/old of the bench
# with AB_BENCH as its extra options (default "--mode ll"), then the graph check on the new build
# (AB_GRAPH=0 skips). GPU time: --gpu-start aligned on both sides, or launch when the old ops library predates
# aligned starts (AB_GPU_START overrides). AB_CHECKS=1: instead of the MoE rules and the graph check on the new build only,
# the whole kit (gpu-run.sh's kit step) and the graph check on both builds, new first, after the pairs; AB_OLD_FAULTS=0
# leaves the Faults suite out on the old side (its killed-PE rules take over a minute each). PEs: -n (default 2). Output in $OUT (default ./gpu-out): one folder per run and
# summary.txt (rows, kernel spans), packed into ab.tgz (a lent-machine run returns few files).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/gpu-out}"; mkdir -p "$out"
pes=2; if [ "${1:-}" = "-n" ]; then pes="$2"; shift 2; fi
natives="$(ls "$here"/lib/backend-nvshmem-*-linux-x86_64.jar)"
old=(); for f in "$here"/ab/*.jar; do [ -e "$f" ] && old+=("$f"); done
[ -e "$here/ab/ops-old.so.xz" ] || ((${#old[@]})) || { echo "nothing to compare: stage with AB_OLD=<revision> scripts/gpu-stage.sh"; exit 2; }
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
sms="${MOE_SMS:-64}"
side_start() { if [ "$1" = old ] && [ -z "$old_start" ]; then echo; else echo "--gpu-start $start"; fi; }
# GPU time the same way on both sides: behind a device barrier ("aligned") only when the old ops library has it
# (an older one would time as launched, and the sides would differ by the method, not the kernels).
has() { python3 - "$@" <<'PY'
import lzma, sys, zipfile
path, needle = sys.argv[1], sys.argv[2].encode()
if path.endswith('.xz'): sys.exit(0 if needle in lzma.open(path).read() else 1)
with zipfile.ZipFile(path) as z: sys.exit(0 if any(needle in z.read(n) for n in z.namelist() if n.endswith('.class')) else 1)
PY
}
start="${AB_GPU_START:-aligned}" old_start="--gpu-start"
if [ -z "${AB_GPU_START:-}" ] && [ -e "$here/ab/ops-old.so.xz" ] && ! has "$here/ab/ops-old.so.xz" moe_hold_kernel; then start=launch; fi
for f in "${old[@]}"; do # an old bench without the option times as launched
  case "$(basename "$f")" in benchmarks-*.jar) has "$f" gpu-start || { start=launch; old_start=; } ;; esac
done
{
  echo "GPU time on both sides: --gpu-start $start"
  kit="$pes"; [ "${AB_KIT:-1}" = 0 ] || [ "${AB_CHECKS:-0}" = 1 ] && kit=
  for ((i = 1; i <= ${AB_PAIRS:-3}; i++)); do
    for b in new old; do
      use $b
      OUT="$out/$b$i" MOE_KIT_RANKS="$kit" MOE_RANKS="$pes" MOE_SMS="$sms" MOE_ARGS="${AB_BENCH:---mode ll} $(side_start $b)" \
        bash "$here/gpu-run.sh" -n "$pes" moe > "$out/$b$i.log" 2>&1
      echo "--- $b $i ($(date -u +%T)): exit codes: $(grep -oE 'exit [0-9]+' "$out/$b$i.log" | tr '\n' ' ')"
      grep -hE 'rules:' "$out/$b$i"/kit-moe-*.txt 2>/dev/null
      grep -hE '^(normal|ll) |GPU|split' "$out/$b$i/bench-moe-nvshmem-${sms}sms.txt"
      tar xzf "$out/$b$i/gpu-run.tgz" -O "./moe-kernel-times-${sms}sms.csv" 2>/dev/null | grep 'span:' | sort
      kit=
    done
  done
  if [ "${AB_CHECKS:-0}" = 1 ]; then
    for b in new old; do
      use $b
      faults=1; [ $b = old ] && faults="${AB_OLD_FAULTS:-1}"
      OUT="$out/checks-$b" KIT_RANKS="$pes" GRAPH_RANKS="$pes" KIT_FAULTS="$faults" bash "$here/gpu-run.sh" -n "$pes" kit graph > "$out/checks-$b.log" 2>&1
      echo "--- checks $b ($(date -u +%T)):"; grep -E '^kit|rules:|FAILED|graph check|ranks failed|^FAIL' "$out/checks-$b.log" | cut -c1-250
    done
  elif [ "${AB_GRAPH:-1}" != 0 ]; then
    use new; OUT="$out/graph" GRAPH_RANKS="$pes" bash "$here/gpu-run.sh" -n "$pes" graph > "$out/graph.log" 2>&1
    echo "graph check (new): $(grep -c 'all checks passed' "$out/graph/graph.txt" 2>/dev/null) of $pes ranks passed"
  fi
} 2>&1 | tee "$out/summary.txt"
use new
( cd "$out" && tar czf /tmp/ab.tgz . && find . -mindepth 1 -delete && mv /tmp/ab.tgz ab.tgz )
