#!/usr/bin/env bash
# Whether two builds of backend-nvshmem's CUDA ops library hold the same code, for a change meant to
# change none (a split of the kernel headers, a rename): no GPU needed, no cuobjdump either.
#   usage: scripts/ops-lib-same.sh OLD NEW    each a .so, or a git revision whose ops library is built here
# Device code: the .nv_fatbin section (the SASS of every arch) byte for byte, once nvcc's per-translation-unit
# hash in internal symbol names (_<8 hex>_10_ucn_ops_cu) is made equal. Host code: objdump's disassembly
# without addresses, PLT stubs sorted (their order follows the symbol hash). Exit 0 when both are the same.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
lib() { # a .so as given, or that revision's ops library built into $work/$2
  if [ -f "$1" ]; then cp "$1" "$work/$2.so"; return; fi
  mkdir -p "$work/$2-src"
  git archive "$1" backend-nvshmem/src/main/native | tar x -C "$work/$2-src"
  bash "$work/$2-src/backend-nvshmem/src/main/native/build-ops.sh" "$work/$2-out" >&2
  [ -f "$work/$2-out/libunicomm_nvshmem_ops.so" ] || { echo "no ops library for $1: $(cat "$work/$2-out/ops-build.txt")" >&2; exit 2; }
  cp "$work/$2-out/libunicomm_nvshmem_ops.so" "$work/$2.so"
}
lib "$1" old; lib "$2" new
for v in old new; do
  objcopy -O binary --only-section=.nv_fatbin "$work/$v.so" "$work/$v.fatbin"
  objdump -d --no-show-raw-insn "$work/$v.so" | tail -n +3 |
    sed -E 's/_[0-9a-f]{8}_10_ucn_ops_cu/_TU_10_ucn_ops_cu/g; s/^ *[0-9a-f]+:\t//; s/\b[0-9a-f]{4,}\b//g; s/0x[0-9a-f]+//g; s/_H_[0-9a-f]+/_H_x/g' |
    awk -v plts="$work/$v.plt" '/^ *<.*@plt>:$/ {plt = $0; next}
      plt != "" && /^$/ {print plt > plts; plt = ""; next} plt != "" {plt = plt " | " $0; next} {print}' > "$work/$v.host"
  sort "$work/$v.plt" >> "$work/$v.host"   # PLT stubs, one a line, in name order
done
same=0
python3 - "$work/old.fatbin" "$work/new.fatbin" <<'PY' || same=1
import re, sys
a, b = (open(p, 'rb').read() for p in sys.argv[1:3])
tu = lambda s: re.sub(rb'_[0-9a-f]{8}_10_ucn_ops_cu', b'_TU_10_ucn_ops_cu', s)
if tu(a) == tu(b):
    print(f"device code (.nv_fatbin, {len(a)} bytes): the same{'' if a == b else ' once the translation-unit hash is made equal'}")
else:
    print(f"device code (.nv_fatbin): DIFFERS ({len(a)} vs {len(b)} bytes)"); sys.exit(1)
PY
if cmp -s "$work/old.host" "$work/new.host"; then
  echo "host code ($(wc -l < "$work/old.host") disassembly lines): the same, addresses and PLT order aside"
else
  echo "host code: DIFFERS:"; diff "$work/old.host" "$work/new.host" | head -20; same=1
fi
exit $same
