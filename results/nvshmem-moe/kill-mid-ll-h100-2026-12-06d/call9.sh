#!/usr/bin/env bash
# Device call 9: kill-mid-ll again under MPS at 3 PEs (is the illegal address repeatable?) and time-sliced at 4 PEs.
set -u
R=$PWD; D=$R/.device; O=$OUT/c9; mkdir -p $O
[ -d .device ] || tar xJf .gl/device.tar.xz || exit 1
OUT=$O/mps3 MASK_RANKS=3 MASK_FAULTS="kill-mid-ll" timeout 200 bash $D/gpu-run.sh mask > $O/mps3.log 2>&1
echo "mps3 done $(date -u +%T)"; grep -v "^PASS" $O/mps3/mask.txt | grep -v "^MASK,.,all\|inactive)" | head -20
grep -h -i "illegal\|exception\|DETECT" $O/mps3/*.log $O/mps3.log 2>/dev/null | head -10
NO_MPS=1 OUT=$O/ts4 MASK_RANKS=4 MASK_FAULTS="kill-mid-ll" timeout 300 bash $D/gpu-run.sh mask > $O/ts4.log 2>&1
echo "ts4 done $(date -u +%T)"; grep -v "^PASS" $O/ts4/mask.txt | grep -v "^MASK,.,all\|inactive)" | head -20
tar czf $OUT/c9.tgz -C $O .
