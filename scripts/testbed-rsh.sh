#!/usr/bin/env bash
# A remote-start agent for launchers that reach hosts the way ssh does (Open MPI's plm_rsh_agent):
# `testbed-rsh.sh HOST COMMAND...` runs COMMAND (one shell string, as ssh takes it) on a test-bed host.
# The bed is TESTBED_NAME (default uctb); HOST is a bed hostname (node1) or address (10.77.0.2).
set -euo pipefail
host=$1; shift
while [ $# -gt 0 ] && [[ "$1" == -* ]]; do shift; done   # ssh-style options (-x, -o ...) do not apply here
export TESTBED_FROM_HOST=1
exec "$(dirname "$0")/testbed.sh" exec "$host" --name "${TESTBED_NAME:-uctb}" -- sh -c "$*"
