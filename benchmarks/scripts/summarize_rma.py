#!/usr/bin/env python3
"""Summarizes several benchmarks/scripts/run_rma.sh result directories: for every row, the median over the runs
of our time, the same-run reference's time and Open MPI OpenSHMEM's time, and the ratios.
Usage: benchmarks/scripts/summarize_rma.py DIR [DIR ...]   (prints a Markdown table)"""
import statistics
import sys

THEIR_OP = {"put+quiet": "put+quiet", "get": "get", "put-signal+quiet": "put-fence-add+quiet",
            "atomic-fetch-add": "atomic-fetch-add", "put-signal-pingpong/2": "p-pingpong/2", "barrier": "barrier"}


def rows(path, skip_header):
    out = {}
    with open(path) as f:
        for line in f:
            if skip_header and line.startswith("op,"):
                continue
            if not skip_header and not line.startswith("BENCH,"):
                continue
            fields = line.strip().split(",")
            if not skip_header:
                fields = fields[1:]
            op, ranks, size = fields[0], int(fields[1]), int(fields[2])
            ns = float(fields[4])
            ref = float(fields[7]) if skip_header else 0.0
            out[(op, ranks, size)] = (ns, ref)
    return out


def size(b):
    if b == 0:
        return "-"
    for unit, mul in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= mul and b % mul == 0:
            return f"{b // mul} {unit}"
    return f"{b} B"


def main(dirs):
    ours = [rows(f"{d}/rma.csv", True) for d in dirs]
    theirs = [rows(f"{d}/openshmem-rma.txt", False) for d in dirs]
    print(f"Medians over {len(dirs)} runs. Time per operation in µs; ratio = reference time / our time; "
          "speedup = OpenSHMEM time / our time (> 1: unicomm faster).\n")
    print("| op | ranks | size | unicomm µs | GB/s | ref µs | ratio vs ref | OpenSHMEM µs | speedup vs OpenSHMEM |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in ours[0]:
        op, ranks, b = key
        ns = statistics.median(run[key][0] for run in ours if key in run)
        refs = [run[key][1] for run in ours if key in run and run[key][1] > 0]
        ref = statistics.median(refs) if refs else 0
        tkey = (THEIR_OP.get(op, ""), ranks, b)
        th = [run[tkey][0] for run in theirs if tkey in run]
        t = statistics.median(th) if th else 0
        gbps = f"{b / ns:.2f}" if b and op != "put-signal-pingpong/2" else "-"
        print(f"| {op} | {ranks} | {size(b)} | {ns / 1000:.4f} | {gbps} | "
              f"{f'{ref / 1000:.4f}' if ref else '-'} | {f'{ref / ns:.2f}x' if ref else '-'} | "
              f"{f'{t / 1000:.4f}' if t else '-'} | {f'{t / ns:.2f}x' if t else '-'} |")


if __name__ == "__main__":
    main(sys.argv[1:])
