#!/usr/bin/env bash
# Which MoE kernels of backend-nvshmem's CUDA ops changed between two revisions, kernel by kernel: both
# translation units compiled to sm_90 cubins (nvcc -cubin, no GPU, no cuobjdump), each kernel's machine code
# (.text.<name>) compared byte for byte. A kernel that gained a trailing template argument (e.g. WIDE) is
# compared as its <..., false> instantiation. Prints same / CHANGED / GONE / NEW per kernel.
#   usage: scripts/ops-kernels-diff.sh OLD [NEW]    git revisions (NEW: the working tree)
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
home="${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem; print(list(nvidia.nvshmem.__path__)[0])')}"
cubin() { # revision (or "" for the working tree) -> $work/$2.cubin
  local src=backend-nvshmem/src/main/native
  if [ -n "$1" ]; then mkdir -p "$work/$2"; git archive "$1" "$src" | tar x -C "$work/$2"; src="$work/$2/$src"; fi
  "$nvcc" -O2 -std=c++17 -rdc=true -cubin -arch=sm_90 -I"$home/include" -I"$src" -o "$work/$2.cubin" "$src/ucn_ops.cu"
}
cubin "$1" old; cubin "${2:-}" new
python3 - "$work/old.cubin" "$work/new.cubin" <<'PY'
import re, struct, sys
def kernels(path):  # .text.<name> sections of an ELF64 cubin
    b = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', b, 0x28); size, num, strndx = struct.unpack_from('<HHH', b, 0x3a)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * size) for i in range(num)]
    names = hdrs[strndx][4]
    out = {}
    for h in hdrs:
        name = b[names + h[0]:b.index(b'\0', names + h[0])].decode()
        if name.startswith('.text.'): out[name[6:]] = b[h[4]:h[4] + h[5]]
    return out
def narrow(n):  # the <..., false> instantiation of a kernel that gained a trailing bool template argument
    m = re.sub(r'EEv12ucn_moe_args$', 'ELb0EEv12ucn_moe_args', n)
    return m if m != n else re.sub(r'^(_Z\d+[a-z_0-9]+?)(12ucn_moe_args)$', r'\1ILb0EEv\2', n)
old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
matched = set()
for n in sorted(old):
    m = n if n in new else narrow(n)
    if m not in new: print('GONE   ', n, '(inlined or removed)'); continue
    matched.add(m)
    print('same   ' if old[n] == new[m] else 'CHANGED', n if m == n else n + ' -> ' + m)
for n in sorted(set(new) - matched): print('NEW    ', n)
PY
