/*
 * Open MPI reference for `unicomm bench collectives`: the same collectives, sizes and timing
 * method (warm-up, an iteration count agreed with MPI_MAX from one timed call, a timed loop
 * between barriers, the slowest rank's time via MPI_MAX), printed as the same CBENCH lines.
 * Sizes follow NCCL-tests: allreduce = vector bytes (FP32 SUM), allgather = gathered total.
 * Usage: coll_mpi OPS MIN MAX FACTOR SECONDS   (OPS: allreduce,allgather,reducescatter,alltoall,broadcast)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double bus_factor(const char *op, int n) {
    if (!strcmp(op, "allreduce")) return 2.0 * (n - 1) / n;
    if (!strcmp(op, "broadcast")) return 1.0;
    return (double) (n - 1) / n;
}

/* Runs one call of `op` for NCCL-tests size `bytes`; returns 0 if the size does not divide. */
static int run(const char *op, char *src, char *dst, long bytes, int n) {
    if (!strcmp(op, "allreduce")) {
        if (bytes % 4) return 0;
        MPI_Allreduce(src, dst, (int) (bytes / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(op, "allgather")) {
        if (bytes % n) return 0;
        MPI_Allgather(src, (int) (bytes / n), MPI_BYTE, dst, (int) (bytes / n), MPI_BYTE, MPI_COMM_WORLD);
    } else if (!strcmp(op, "reducescatter")) {
        if (bytes % (4L * n)) return 0;
        MPI_Reduce_scatter_block(src, dst, (int) (bytes / 4 / n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(op, "alltoall")) {
        if (bytes % n) return 0;
        MPI_Alltoall(src, (int) (bytes / n), MPI_BYTE, dst, (int) (bytes / n), MPI_BYTE, MPI_COMM_WORLD);
    } else if (!strcmp(op, "broadcast")) {
        MPI_Bcast(src, (int) bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else {
        fprintf(stderr, "unknown op %s\n", op);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return 1;
}

static double slowest(double t) {
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc != 6) {
        fprintf(stderr, "usage: %s OPS MIN MAX FACTOR SECONDS\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long min = atol(argv[2]), max = atol(argv[3]), factor = atol(argv[4]);
    double budget = atof(argv[5]);
    char *src = aligned_alloc(4096, (size_t) max), *dst = aligned_alloc(4096, (size_t) max);
    memset(src, 1, (size_t) max);
    memset(dst, 0, (size_t) max);
    char *ops = strdup(argv[1]);
    for (char *op = strtok(ops, ","); op; op = strtok(NULL, ",")) {
        for (long bytes = min; bytes <= max; bytes *= factor) {
            if (!run(op, src, dst, bytes, n)) continue;
            for (int i = 0; i < 2; i++) run(op, src, dst, bytes, n);
            double t0 = MPI_Wtime();
            run(op, src, dst, bytes, n);
            double one = slowest(MPI_Wtime() - t0);
            long iters = (long) (budget / (one > 1e-9 ? one : 1e-9));
            if (iters < 3) iters = 3;
            if (iters > 10000) iters = 10000;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (long i = 0; i < iters; i++) run(op, src, dst, bytes, n);
            double t = slowest(MPI_Wtime() - t0);
            if (rank == 0) {
                double us = t / iters * 1e6, alg = bytes / (us * 1e3);
                printf("CBENCH,%s,%d,%ld,%.3f,%.4f,%.4f\n", op, n, bytes, us, alg, alg * bus_factor(op, n));
                fflush(stdout);
            }
        }
    }
    free(ops);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
