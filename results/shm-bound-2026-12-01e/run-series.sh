#!/usr/bin/env bash
# Three alternating rounds of the two bench moe modes on the current build (bin/unicomm), raw output per run.
set -euo pipefail
out="${1:-$(dirname "$0")/raw}"
mkdir -p "$out"
for i in 1 2 3; do
  bin/unicomm bench moe -n 4 --mode ll > "$out/ll-$i.txt" 2>&1
  bin/unicomm bench moe -n 4 --mode normal --iters 5 > "$out/normal-$i.txt" 2>&1
done
