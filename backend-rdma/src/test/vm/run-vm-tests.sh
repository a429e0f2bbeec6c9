#!/usr/bin/env bash
# Runs backend-rdma's device tests inside a throw-away QEMU VM with two real soft-RoCE devices (rxe0, rxe1 on a veth pair),
# using the classes and jars built on the host (java is the only thing run inside the VM).
#   backend-rdma/src/test/vm/run-vm-tests.sh            # after ./mvnw -pl backend-rdma -am verify -Drdma.vm.skip=true
# Host packages: qemu-system-x86 mmdebstrap kmod cpio (the VM image is built once into /tmp/rdmavm).
# Exit status: 0 all passed, 1 a test failed, 124 timeout, 125 VM failure.
set -euo pipefail
MODULE=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$MODULE"
VM=${RDMAVM_SCRIPT:-$MODULE/src/test/vm/run-in-vm.sh}
# Exit status: 0 also when RDMA_VM_OPTIONAL=1 (set by the Maven build) and the VM's tools are missing: then
# one line says what is missing and how to enable the suite.
for tool in qemu-system-x86_64 mmdebstrap cpio; do
  path=$(command -v "$tool") && [ -x "$path" ] && [ -f "$path" ] && continue   # bash's lookup can return a non-executable file
  if [ "${RDMA_VM_OPTIONAL:-0}" = 1 ]; then
    echo "[backend-rdma] soft-RoCE VM suite SKIPPED: $tool is not installed (to run it: apt-get install -y qemu-system-x86 mmdebstrap kmod cpio)"
    exit 0
  fi
  echo "run-vm-tests: $tool missing: apt-get install -y qemu-system-x86 mmdebstrap kmod cpio" >&2; exit 125
done
[ -f target/test-classpath.txt ] && [ -d target/test-classes ] && ls target/classes/dev/unicomm/backend/rdma/internal/linux-x86_64/*.so >/dev/null \
  || { echo "run-vm-tests: build first: ./mvnw -pl backend-rdma -am verify -Drdma.vm.skip=true" >&2; exit 125; }
CP="$MODULE/target/test-classes:$MODULE/target/classes:$(cat target/test-classpath.txt)"
M2=${MAVEN_REPO:-$HOME/.m2/repository}
# The VM has two devices, rxe0 and rxe1, on the two ends of a veth pair: the one-device tests use rxe0, the
# RdmaTwoDevices* ones both (endpoints, and four of the kit's RMA rules with 2 ranks on each device; the whole
# RMA suite so takes ~4 minutes more: RDMA_VM_TESTS=dev.unicomm.backend.rdma.kit.RdmaTwoDevicesKitLeanTest).
TWO=dev.unicomm.backend.rdma.kit.RdmaTwoDevicesKitLeanTest
TESTS=${RDMA_VM_TESTS:-"dev.unicomm.backend.rdma.RdmaAvailabilityTest dev.unicomm.backend.rdma.RdmaEndpointTest dev.unicomm.backend.rdma.RdmaRmaTest dev.unicomm.backend.rdma.kit.RdmaKitTwoRanksTest dev.unicomm.backend.rdma.RdmaTwoDevicesTest $TWO#required_rma_put_all_to_all $TWO#required_rma_get_all_sizes $TWO#required_rma_quiet_completes_puts_to_every_pe $TWO#required_rma_large_transfer"}
JAVA_OPTS="--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -Dorg.bytedeco.javacpp.cachedir=/tmp/javacpp-cache"
# The guest has no Maven: it runs JUnit through VmTestMain, which prints a line as each test starts and ends.
# Time limits follow progress, not the clock: the VM is stopped after RDMAVM_IDLE_TIMEOUT seconds without
# any output (the last lines then name the test that was running), or after RDMAVM_TIMEOUT in all. Under
# TCG emulation a busy host slows the guest several times over, so a fixed total would fail there.
# A kit suite's job start (2 guest JVMs) took over 180 s once at host load 15: the kit's start-up limit is
# raised to just under the idle limit, which stays the guard against a real hang.
CMD="export UNICOMM_RDMA_REQUIRE=1 UNICOMM_RDMA_DEVICE=rxe0 UNICOMM_KIT_START_TIMEOUT=${UNICOMM_KIT_START_TIMEOUT:-540s}; ibv_devices; java $JAVA_OPTS -cp '$CP' dev.unicomm.backend.rdma.VmTestMain $TESTS"
# Share the reactor root: in a reactor build the class path names sibling modules' target/classes.
cd "$MODULE/.."
start=$(date +%s)
set +e
RDMAVM_TIMEOUT=${RDMAVM_TIMEOUT:-3600} RDMAVM_IDLE_TIMEOUT=${RDMAVM_IDLE_TIMEOUT:-600} RDMAVM_SHARES="$M2:ro ${RDMAVM_SHARES:-}" "$VM" "$CMD"
rc=$?
set -e
echo "run-vm-tests: exit $rc after $(( $(date +%s) - start )) s (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
exit $rc
