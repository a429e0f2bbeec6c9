#!/usr/bin/env bash
# Builds libunicomm_nvshmem_ops.so (CUDA + NVSHMEM device/host API) into $1 with nvcc.
# Needs: nvcc (CUDA 12.4+; NVCC or /usr/local/cuda/bin/nvcc or PATH) and NVSHMEM 3.x headers +
# libraries (NVSHMEM_HOME, or the pip wheel nvidia-nvshmem-cu13 / -cu12). When either is missing the
# build is SKIPPED, not failed: the jar then has the JNI library only, and the backend reports
# "ops library not built" with this reason at run time (the reason is written to ops-build.txt).
set -u
out_dir="$1"
src_dir="$(cd "$(dirname "$0")" && pwd)"
archs="${UNICOMM_CUDA_ARCHS:-80 90}"
mkdir -p "$out_dir"
status="$out_dir/ops-build.txt"
lib="$out_dir/libunicomm_nvshmem_ops.so"

skip() {
  echo "[backend-nvshmem] SKIPPING the CUDA ops library: $1" >&2
  echo "[backend-nvshmem] the jar will load everywhere, but the backend stays unavailable until it is rebuilt with nvcc and NVSHMEM" >&2
  printf 'skipped: %s\n' "$1" > "$status"
  rm -f "$lib"
  exit 0
}

[ -n "${UNICOMM_SKIP_CUDA:-}" ] && skip "UNICOMM_SKIP_CUDA is set"
nvcc="${NVCC:-}"
[ -n "$nvcc" ] && [ ! -x "$nvcc" ] && skip "NVCC=$nvcc is not an executable"
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
[ -z "$nvcc" ] && nvcc="$(command -v nvcc || true)"
[ -n "$nvcc" ] || skip "nvcc not found (set NVCC, or install the CUDA toolkit at /usr/local/cuda)"

home="${NVSHMEM_HOME:-}"
if [ -z "$home" ]; then
  for py in python3 python; do
    command -v "$py" >/dev/null 2>&1 || continue
    home="$("$py" -c 'import nvidia.nvshmem, os; print(list(nvidia.nvshmem.__path__)[0])' 2>/dev/null || true)"
    [ -n "$home" ] && break
  done
fi
[ -n "$home" ] && [ -f "$home/include/nvshmem.h" ] \
  || skip "NVSHMEM headers not found (set NVSHMEM_HOME, or: pip install nvidia-nvshmem-cu13)"
[ -f "$home/lib/libnvshmem_device.a" ] || skip "$home/lib/libnvshmem_device.a not found"
host_lib="$(ls "$home"/lib/libnvshmem_host.so* 2>/dev/null | head -1)"
[ -n "$host_lib" ] || skip "$home/lib/libnvshmem_host.so* not found"

# Rebuild only when a source is newer than the library.
if [ -f "$lib" ] && [ -z "$(find "$src_dir" -newer "$lib" -name 'ucn_*' -print -quit)" ]; then
  echo "[backend-nvshmem] ops library up to date"
  exit 0
fi

gencode=()
for a in $archs; do gencode+=("-gencode=arch=compute_$a,code=sm_$a"); done
echo "[backend-nvshmem] nvcc ($("$nvcc" --version | tail -1)) against NVSHMEM at $home, archs: $archs"
if ! "$nvcc" -O2 -std=c++17 -Xcompiler -fPIC -rdc=true -shared "${gencode[@]}" -Wno-deprecated-gpu-targets \
      -I"$home/include" -I"$src_dir" -o "$lib" "$src_dir/ucn_ops.cu" \
      -L"$home/lib" -lnvshmem_device -l:"$(basename "$host_lib")"; then
  echo "[backend-nvshmem] nvcc FAILED" >&2
  exit 1
fi
printf 'built: nvcc %s, NVSHMEM %s, archs %s\n' "$("$nvcc" --version | tail -1)" "$home" "$archs" > "$status"
