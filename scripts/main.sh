#!/usr/bin/env bash
# The README's main job: build, then show the backends this machine can run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec bin/unicomm info
