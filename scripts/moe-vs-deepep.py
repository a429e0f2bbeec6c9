#!/usr/bin/env python3
"""Joins `bench moe --shape ... --sms ... --gpu-time` output (gpu-run.sh shapes) with DeepEP V1's rows from the same lease
(benchmarks/reference/deepep_moe.py's TSV, gpu-run.sh deepep) into one Markdown table per operation pair:
shape, SMs, bytes per rank, unicomm host wall and GPU time, DeepEP host wall and GPU time (mean of its event-timed calls),
and DeepEP / unicomm on each (> 1: unicomm faster). A shape DeepEP refused is a row that says so.
usage: moe-vs-deepep.py OURS.txt DEEPEP.tsv"""
import re
import sys

PAIRS = [('normal dispatch', 'dispatch BF16, layout + top-k', 'dispatch BF16, top-k (layout from torch, untimed)'),
         ('normal dispatch fp8', 'dispatch FP8, top-k', None),
         ('normal dispatch cached', 'dispatch BF16, cached', None),
         ('normal combine', 'combine BF16', None)]


def ours(path):
    rows, shape, memory = {}, None, {}
    for line in open(path, errors='replace'):
        m = re.match(r'shape (\S+):', line)
        if m:
            shape = m.group(1)
            continue
        m = re.match(r'memory per PE, normal, \d+ tokens: MoeConfig.sizeHint (\d+) B; DeepEP V1 (\d+) B', line)
        if m and shape:
            memory[shape] = (int(m.group(1)), int(m.group(2)))
        m = re.match(r'(normal [a-z0-9 ]+?) @(\d+) SMs\s+(\d+)\s+(\d+(?:\.\d+)? ?[KMG]?i?B)\s+([\d.]+)\s', line)
        if m and shape:
            fields = line.split()
            gpu = fields[-1] if re.match(r'^[\d.]+$', fields[-1]) and fields[-2] == 'B' else None
            rows[(shape, m.group(1).strip(), int(m.group(2)))] = (m.group(4), float(m.group(5)), float(gpu) if gpu else None)
    return rows, memory


def deepep(path):
    rows, refused = {}, {}
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if f[0] == 'shape' or len(f) < 10:
            continue
        if f[2] == 'refused':
            refused[f[0]] = f[9]
        else:
            rows[(f[0], f[2], int(f[3]))] = (float(f[5]), float(f[7]))
    return rows, refused


def main():
    o, memory = ours(sys.argv[1])
    d, refused = deepep(sys.argv[2])
    shapes = list(dict.fromkeys(k[0] for k in o))
    for op, dname, alt in PAIRS:
        print(f'\n**{op}** (DeepEP: {dname})\n')
        print('| shape | SMs | bytes/rank | unicomm host µs | unicomm GPU µs | DeepEP host µs | DeepEP GPU µs | DeepEP / unicomm, host | DeepEP / unicomm, GPU |')
        print('|---|---|---|---|---|---|---|---|---|')
        for s in shapes:
            for sms in sorted({k[2] for k in o if k[0] == s and k[1] == op}):
                size, host, gpu = o[(s, op, sms)]
                ref = d.get((s, dname, sms)) or (d.get((s, alt, sms)) if alt else None)
                if ref:
                    note = '' if (s, dname, sms) in d else ' (layout from torch, untimed)'
                    ratio = f'{ref[0] / gpu:.2f}' if gpu else '-'
                    print(f'| {s} | {sms} | {size} | {host:.1f} | {gpu if gpu else "-"} | {ref[1]:.1f} | {ref[0]:.1f}{note} | {ref[1] / host:.2f} | {ratio} |')
                elif s in refused:
                    print(f'| {s} | {sms} | {size} | {host:.1f} | {gpu if gpu else "-"} | refused (experts per rank > 128) | - | ahead | ahead |')
                else:
                    print(f'| {s} | {sms} | {size} | {host:.1f} | {gpu if gpu else "-"} | not run | - | - | - |')
    print('\nmemory per PE (normal, 4096 tokens): ' + '; '.join(f'{s} {a / 2**20:.0f} MiB (DeepEP V1 hint {b / 2**20:.0f} MiB)'
                                                           for s, (a, b) in memory.items()))


if __name__ == '__main__':
    main()
