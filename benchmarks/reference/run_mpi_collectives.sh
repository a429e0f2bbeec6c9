#!/usr/bin/env bash
# Builds and runs the Open MPI reference of `unicomm bench collectives` (coll_mpi.c) for 2 and 4
# ranks with the same sizes and timing method; writes the CBENCH lines to OUT (default
# benchmarks/reference/mpi-collectives.txt), which `unicomm bench collectives --compare OUT` reads.
# Needs: apt-get install openmpi-bin libopenmpi-dev
# Usage: benchmarks/reference/run_mpi_collectives.sh [OUT] [OPS MIN MAX FACTOR SECONDS REPEAT]
# REPEAT runs per job size are all written; --compare keeps each row's best time (as --repeat does for us).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/mpi-collectives.txt}"
ops="${2:-allreduce,allgather}"; min="${3:-4}"; max="${4:-67108864}"; factor="${5:-4}"; secs="${6:-0.3}"; repeat="${7:-1}"
command -v mpicc >/dev/null || { echo "mpicc not found: apt-get install openmpi-bin libopenmpi-dev" >&2; exit 1; }
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
mpicc -O2 -o "$build/coll_mpi" "$here/coll_mpi.c"
# Root in containers needs --allow-run-as-root; 4 ranks on 2 cores need --oversubscribe (which
# also makes Open MPI yield while it waits, as our waits do).
: > "$out"
for k in $(seq "$repeat"); do for np in 2 4; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" "$build/coll_mpi" "$ops" "$min" "$max" "$factor" "$secs" | grep '^CBENCH,' >> "$out"
done; done
cat "$out"
echo "wrote $out" >&2
