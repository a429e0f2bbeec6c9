#!/usr/bin/env bash
# Builds the distribution (cli/target/unicomm-cli.jar + lib/) without running tests.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk25.sh
./mvnw -B -ntp -q package -DskipTests "$@"
