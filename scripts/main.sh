#!/usr/bin/env bash
# The README's main job: build, then run the MoE dispatch/combine benchmark (DeepEP's shapes,
# verified against the reference, with the same-run copy bound) on backend-shm with 4 ranks.
# Extra arguments go to `unicomm bench moe` (e.g. --csv moe.csv, --no-verify).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec bin/unicomm bench moe --backend shm -n 4 "$@"
