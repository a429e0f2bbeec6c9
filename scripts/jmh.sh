#!/usr/bin/env bash
# Builds the shaded JMH jar (benchmarks/target/benchmarks.jar) and runs it.
# Default: short iterations (about 40 s in all). Any arguments go to JMH instead, e.g.
#   scripts/jmh.sh RmaOverhead -wi 5 -i 10 -f 2      # longer, more stable
#   scripts/jmh.sh -l                                # list the benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk25.sh
./mvnw -B -q -pl benchmarks -am package -DskipTests
if [ $# -eq 0 ]; then set -- -wi 2 -w 1s -i 3 -r 1s -f 1; fi
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar benchmarks/target/benchmarks.jar "$@"
