#!/usr/bin/env bash
# Runs every test of the reactor with JDK 25 (the README's test command).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk25.sh
exec ./mvnw -B -ntp verify "$@"
