#!/usr/bin/env bash
# Device call 8 (issue 50 follow-up): kill-mid-ll (a rank SIGKILLed inside a low-latency dispatch after sending its counts), 3 PEs MPS, then time-sliced.
set -u
R=$PWD; D=$R/.device; O=$OUT/c8; mkdir -p $O
rm -rf .device; tar xJf .gl/device.tar.xz || exit 1; grep -c kill-mid-ll .device/test-classes/dev/unicomm/backend/nvshmem/gpu/MaskGpuCheck.class
{ date -u; nvidia-smi -L; } > $O/machine.txt 2>&1
OUT=$O/mask3 MASK_RANKS=3 MASK_FAULTS="kill-mid-ll" timeout 240 bash $D/gpu-run.sh mask > $O/mask3.log 2>&1
echo "mask3 done $(date -u +%T) rc=$?"
grep -v "^PASS" $O/mask3/mask.txt | head -40
NO_MPS=1 OUT=$O/mask3ts MASK_RANKS=3 MASK_FAULTS="kill-mid-ll" timeout 240 bash $D/gpu-run.sh mask > $O/mask3ts.log 2>&1
echo "mask3ts done $(date -u +%T) rc=$?"
grep -v "^PASS" $O/mask3ts/mask.txt | head -40
tar czf $OUT/c8.tgz -C $O .
