#!/usr/bin/env python3
"""Medians of the MoE kernels' phase notes (UCN_MOE_TRACE=<prefix> writes <prefix>.<pid>, one file per PE).

Usage: scripts/moe-trace-summary.py FILE...   (plain or .gz)
Each note line: MOETRACE <kernel id> <first|last block> <end of phase 1> <end of phase 2> ... (ns after
that block started). The phases of each kernel are commented in backend-nvshmem/src/main/native/ucn_moe_*.cuh
(MOE_PHASE). Prints, per file, kernel and block, the median end of every phase in microseconds.
"""
import collections
import gzip
import statistics
import sys

KERNELS = {1: 'll_dispatch', 2: 'll_combine', 3: 'normal_prep', 4: 'normal_dispatch', 5: 'normal_combine'}

for path in sorted(sys.argv[1:]):
    notes = collections.defaultdict(list)
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[0] != 'MOETRACE':
                continue
            notes[(KERNELS.get(int(p[1]), p[1]), p[2])].append([int(x) for x in p[3:]])
    print('==', path)
    for (kernel, block), rows in sorted(notes.items()):
        n = max(len(r) for r in rows)
        med = [statistics.median([r[i] for r in rows if len(r) > i]) / 1000 for i in range(n)]
        print('%-16s %-5s n=%5d ' % (kernel, block, len(rows)) + ' '.join('%6.1f' % m for m in med))
