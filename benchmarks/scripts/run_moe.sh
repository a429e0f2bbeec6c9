#!/usr/bin/env bash
# Reproduces the "MoE, backend-shm" figures of BENCHMARKS.md: records the machine and its load,
# then runs `unicomm bench moe -n 4` (DeepEP's shapes, verified against the reference) into
# OUTDIR (machine.txt, moe.txt, moe.csv). Extra arguments go to `unicomm bench moe`.
# Usage: benchmarks/scripts/run_moe.sh OUTDIR [bench moe options...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:?usage: benchmarks/scripts/run_moe.sh OUTDIR [bench moe options]}"
shift
mkdir -p "$out"
[ -f "$root/cli/target/unicomm-cli.jar" ] || "$root/scripts/build.sh"
. "$root/benchmarks/scripts/machine.sh"
machine_header | tee "$out/machine.txt"
start=$(date +%s)
"$root/bin/unicomm" bench moe --backend shm -n 4 --csv "$out/moe.csv" "$@" | tee "$out/moe.txt"
echo "wall: $(( $(date +%s) - start )) s" | tee -a "$out/machine.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
