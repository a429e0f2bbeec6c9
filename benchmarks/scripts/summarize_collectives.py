#!/usr/bin/env python3
"""Summarizes several benchmarks/scripts/run_collectives.sh result directories: for every (op, ranks, size),
the median over the runs of our time and Open MPI's time, the bus bandwidths computed from those
medians (NCCL-tests' factors), and the ratios.
Usage: benchmarks/scripts/summarize_collectives.py DIR [DIR ...]   (prints a Markdown table)"""
import statistics
import sys


def factor(op, n):
    return 2.0 * (n - 1) / n if op == "allreduce" else (1.0 if op == "broadcast" else (n - 1) / n)


def ours(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("op,"):
                continue
            op, ranks, size, us = line.strip().split(",")[:4]
            out[(op, int(ranks), int(size))] = float(us)
    return out


def theirs(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("CBENCH,"):
                _, op, ranks, size, us = line.strip().split(",")[:5]
                out[(op, int(ranks), int(size))] = float(us)
    return out


def size(b):
    for unit, mul in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= mul and b % mul == 0:
            return f"{b // mul} {unit}"
    return f"{b} B"


def main(dirs):
    a = [ours(f"{d}/collectives.csv") for d in dirs]
    b = [theirs(f"{d}/mpi-collectives.txt") for d in dirs]
    print("| op | ranks | size | unicomm time (us) | Open MPI time (us) | unicomm busbw (GB/s) | Open MPI busbw (GB/s) | busbw ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(a[0], key=lambda k: (k[0], k[1], k[2])):
        mine = [r[key] for r in a if key in r]
        other = [r[key] for r in b if key in r]
        if not mine or not other:
            continue
        t, o = statistics.median(mine), statistics.median(other)
        op, n, s = key
        bw, obw = s / (t * 1e3) * factor(op, n), s / (o * 1e3) * factor(op, n)
        print(f"| {op} | {n} | {size(s)} | {t:.2f} | {o:.2f} | {bw:.3f} | {obw:.3f} | {bw / obw:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
