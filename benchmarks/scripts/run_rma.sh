#!/usr/bin/env bash
# Reproduces the "RMA, backend-shm" figures of BENCHMARKS.md: records the machine, runs the
# OpenSHMEM reference (benchmarks/reference/run_openshmem.sh), then `unicomm bench rma` with the
# comparison, into OUTDIR (machine.txt, openshmem-rma.txt, rma.txt, rma.csv).
# Usage: benchmarks/scripts/run_rma.sh OUTDIR [java executable; default: the JDK 25 that scripts/jdk25.sh finds]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:?usage: benchmarks/scripts/run_rma.sh OUTDIR [java]}"
mkdir -p "$out"
if [ -n "${2:-}" ]; then java="$2"; else . "$root/scripts/jdk25.sh"; java="$JAVA_HOME/bin/java"; fi
jar="$root/cli/target/unicomm-cli.jar"
[ -f "$jar" ] || "$root/scripts/build.sh"
. "$root/benchmarks/scripts/machine.sh"
machine_header "$java" | tee "$out/machine.txt"
"$root/benchmarks/reference/run_openshmem.sh" "$out/openshmem-rma.txt" > /dev/null
"$java" --enable-native-access=ALL-UNNAMED -jar "$jar" bench rma --csv "$out/rma.csv" \
  --compare "$out/openshmem-rma.txt" | tee "$out/rma.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
