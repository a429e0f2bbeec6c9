#!/usr/bin/env bash
# Assembles what scripts/gpu-run.sh needs on a GPU machine without Java or Maven into one folder
# (default .device/, git-ignored): a jlinked Java 25 runtime, every runtime/test jar, the test
# classes of backend-nvshmem (GPU check, kit runner, Java RMA bench), the C reference benchmark and the
# bandwidth program of `bench moe --roofline` built with nvcc, gpu-run.sh and gpu-ab.sh. Run after: ./mvnw -pl backend-nvshmem,cli -am verify -DskipTests
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk25.sh
out="${1:-.device}"
rm -rf "$out"
mkdir -p "$out/lib" "$out/bin"
out="$(cd "$out" && pwd)"   # absolute: Maven's -DoutputDirectory below must not land inside the repository
# jdk.jfr: comm-api's events and --jfr; jdk.incubator.vector: the portable MoE; jdk.zipfs: JUnit's class-path scan of the kit jar. No java.desktop (--plot): it would push
# the folder past the 64 MiB a lent-machine run carries; plot the CSV files here instead (the bench commands' --plot).
"$JAVA_HOME/bin/jlink" --add-modules java.base,jdk.unsupported,java.management,java.logging,jdk.management,java.xml,java.naming,jdk.crypto.ec,jdk.incubator.vector,jdk.jfr,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --compress=zip-9 --output "$out/jre"
./mvnw -B -q -pl backend-nvshmem,cli -am package dependency:copy-dependencies -DskipTests -DincludeScope=test -DexcludeArtifactIds=backend-nvshmem -DoutputDirectory="$out/lib"
cp backend-nvshmem/target/backend-nvshmem-*.jar "$out/lib/"   # the classes jar and the linux-x86_64 natives jar
cp -r backend-nvshmem/target/test-classes "$out/test-classes"
cp cli/target/unicomm-cli.jar "$out/lib/"; cp -n cli/target/lib/*.jar "$out/lib/"
# The ops library travels inside backend-nvshmem's linux-x86_64 jar; the C reference is built here against the same NVSHMEM.
home="${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem, os; print(list(nvidia.nvshmem.__path__)[0])')}"
# Each reference program is ~3.7 MiB (NVSHMEM's device library is linked in): both do not fit in the
# 64 MiB a lent-machine run carries beside the runtime. REFS picks them: nvlink_ref (bench moe
# --roofline, the default) and/or rma_ref (the bench and layout steps), e.g. REFS=rma_ref.
for ref in ${REFS-nvlink_ref}; do   # REFS= (empty): none
  /usr/local/cuda/bin/nvcc -O2 -rdc=true -gencode=arch=compute_90,code=sm_90 -I"$home/include" -o "$out/bin/$ref" \
    "benchmarks/reference/$ref.cu" -L"$home/lib" -lnvshmem_device -l:libnvshmem_host.so.3
  strip --strip-unneeded "$out/bin/$ref"
done
strip --strip-unneeded "$out/jre/lib/server/libjvm.so"
rm -f "$out"/lib/jfreechart-*.jar   # --plot only (and the runtime has no java.desktop): keeps a run's carry under 64 MiB
rm -f "$out"/lib/jmh-core-*.jar "$out"/lib/jopt-simple-*.jar "$out"/lib/commons-math3-*.jar   # JMH only (the benchmarks jar's JMH classes are not run there)
cp scripts/gpu-run.sh scripts/gpu-ab.sh benchmarks/reference/deepep_moe.py "$out/"
# gpu-run.sh remote: REMOTE_LIBS=1 carries this machine's UCX and libfabric (and what libfabric loads besides libc) for
# NVSHMEM's remote transports, which the GPU machine may not have (~6 MiB).
if [ "${REMOTE_LIBS:-0}" = 1 ]; then
  mkdir -p "$out/remote-libs/ucx"
  for l in libucp.so.0 libucs.so.0 libuct.so.0 libucm.so.0 libfabric.so.1; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$out/remote-libs/"; done
  cp -L /usr/lib/x86_64-linux-gnu/ucx/libuct_*.so.0 "$out/remote-libs/ucx/" 2>/dev/null || true
  ldd /usr/lib/x86_64-linux-gnu/libfabric.so.1 | awk '$3 ~ /^\// {print $3}' | grep -v -E '/lib(c|m|pthread|dl|rt)\.so' |
    while read -r l; do cp -Ln "$l" "$out/remote-libs/"; done
fi
# For scripts/gpu-ab.sh: AB_OLD=<git revision> adds that revision's CUDA ops library (sm_90, xz-packed, ~3.5 MiB);
# AB_OLD_JAR="<jar>..." adds jars to swap for lib/'s jars of the same name. With either, stage REFS= (no reference
# programs) to stay under the 64 MiB a lent-machine run carries.
if [ -n "${AB_OLD:-}" ]; then
  tmp="$(mktemp -d)"
  git archive "$AB_OLD" backend-nvshmem/src/main/native | tar x -C "$tmp"
  UNICOMM_CUDA_ARCHS=90 bash "$tmp/backend-nvshmem/src/main/native/build-ops.sh" "$tmp/so" >&2
  [ -f "$tmp/so/libunicomm_nvshmem_ops.so" ] || { echo "the ops library of $AB_OLD was not built: $(cat "$tmp/so/ops-build.txt")" >&2; exit 1; }
  mkdir -p "$out/ab"; xz -9 -c "$tmp/so/libunicomm_nvshmem_ops.so" > "$out/ab/ops-old.so.xz"
  rm -rf "$tmp"
fi
for jar in ${AB_OLD_JAR:-}; do mkdir -p "$out/ab"; cp "$jar" "$out/ab/"; done
du -sh "$out" "$out"/*
# A lent-machine run carries at most 64 MiB, the working tree included (tracked files and untracked ones git
# does not ignore; a tracked file deleted here is not carried): past that, the folder travels packed.
tree_mib=$({ git ls-files -z --cached --others --exclude-standard | xargs -0 -r stat -c %s 2>/dev/null || true; } |
  awk '{s += $1} END {print int(s / 1048576) + 1}')
out_mib=$(du -sm "$out" | cut -f1)
rm -f .gl/device.tar.xz
if ((tree_mib + out_mib > 62)); then
  mkdir -p .gl
  tar cf - -C "$(dirname "$out")" "$(basename "$out")" | xz -T0 -6 > .gl/device.tar.xz
  echo "staged $out_mib MiB + tree $tree_mib MiB is past a run's 64 MiB carry: packed into .gl/device.tar.xz ($(du -sm .gl/device.tar.xz | cut -f1) MiB);"
  echo "carry .gl instead of $(basename "$out") and start the command there with: tar xJf .gl/device.tar.xz &&"
fi
