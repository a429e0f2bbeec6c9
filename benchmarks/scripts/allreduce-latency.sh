#!/usr/bin/env bash
# Per-call latency percentiles of a small allreduce (AllreduceLatency.java), next to the mean that
# `unicomm bench collectives` prints. Needs the built distribution (scripts/build.sh).
# Usage: benchmarks/scripts/allreduce-latency.sh [RANKS] [ELEMENTS] [WARMUP_CALLS] [TIMED_CALLS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/jdk25.sh"
ranks="${1:-4}"; elements="${2:-1}"; warm="${3:-20000}"; timed="${4:-10000}"
cli="$root/cli/target/unicomm-cli.jar"
[ -f "$cli" ] || "$root/scripts/build.sh"
classes="$(mktemp -d)"
trap 'rm -rf "$classes"' EXIT
"$JAVA_HOME/bin/javac" -cp "$cli:$(ls "$root"/cli/target/lib/*.jar | tr '\n' ':')" -d "$classes" "$root/benchmarks/scripts/latency/AllreduceLatency.java"
"$root/bin/unicomm" run -n "$ranks" --cp "$classes" -- AllreduceLatency "$elements" "$warm" "$timed"
