#!/usr/bin/env bash
# Builds and runs the OpenSHMEM reference (Open MPI's oshmem) with the same sizes and timing
# method as `unicomm bench rma`; writes the BENCH lines to the CSV-like file given (default
# benchmarks/reference/openshmem-rma.txt). Needs: apt-get install openmpi-bin libopenmpi-dev
# Usage: benchmarks/reference/run_openshmem.sh [OUT] [MIN MAX FACTOR BARRIER_ITERS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/openshmem-rma.txt}"
min="${2:-8}"; max="${3:-67108864}"; factor="${4:-2}"; iters="${5:-20000}"
command -v oshcc >/dev/null || { echo "oshcc not found: apt-get install openmpi-bin libopenmpi-dev" >&2; exit 1; }
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
oshcc -O2 -o "$build/shmem_rma" "$here/shmem_rma.c"
# Root in containers needs --allow-run-as-root; 4 PEs on 2 cores need --oversubscribe.
osh=(oshrun --allow-run-as-root --oversubscribe --bind-to none)
# Debian's Open MPI 4.1.4 oshmem segfaults inside shmem_finalize (even for a hello world), after
# every result has been printed: keep the output, ignore the exit code, check the lines instead.
"${osh[@]}" -np 2 "$build/shmem_rma" "$min" "$max" "$factor" "$iters" > "$build/rma.log" 2>&1 || true
"${osh[@]}" -np 4 "$build/shmem_rma" barrier "$iters" > "$build/barrier.log" 2>&1 || true
grep -h '^BENCH,' "$build/rma.log" "$build/barrier.log" > "$out" || true
for want in "BENCH,atomic-fetch-add,2," "BENCH,barrier,2," "BENCH,barrier,4,"; do
  grep -q "^$want" "$out" || { echo "missing $want in the OpenSHMEM output:" >&2; cat "$build/rma.log" "$build/barrier.log" >&2; exit 1; }
done
cat "$out"
echo "wrote $out" >&2
