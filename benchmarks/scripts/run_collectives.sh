#!/usr/bin/env bash
# Reproduces the "Collectives, backend-shm" figures of BENCHMARKS.md: records the machine, runs
# the Open MPI reference (benchmarks/reference/run_mpi_collectives.sh: MPI_Allreduce / MPI_Allgather,
# same sizes and timing method), then `unicomm bench collectives` with the comparison, into
# OUTDIR (machine.txt, mpi-collectives.txt, collectives.txt, collectives.csv).
# Usage: benchmarks/scripts/run_collectives.sh OUTDIR [MAX_BYTES, default 268435456]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:?usage: benchmarks/scripts/run_collectives.sh OUTDIR [MAX_BYTES]}"
max="${2:-268435456}"
mkdir -p "$out"
. "$root/scripts/jdk25.sh"
java="$JAVA_HOME/bin/java"
jar="$root/cli/target/unicomm-cli.jar"
[ -f "$jar" ] || "$root/scripts/build.sh"
. "$root/benchmarks/scripts/machine.sh"
machine_header "$java" | tee "$out/machine.txt"
"$root/benchmarks/reference/run_mpi_collectives.sh" "$out/mpi-collectives.txt" allreduce,allgather 4 "$max" 4 0.2 1 > /dev/null
"$java" --enable-native-access=ALL-UNNAMED -jar "$jar" bench collectives -n 2,4 --ops allreduce,allgather \
  --min-size 4 --max-size "$max" --factor 4 --seconds 0.2 --csv "$out/collectives.csv" \
  --compare "$out/mpi-collectives.txt" | tee "$out/collectives.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
