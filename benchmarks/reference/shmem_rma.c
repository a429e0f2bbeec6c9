/*
 * OpenSHMEM reference for `unicomm bench rma`: the same operations, sizes and timing method
 * (warm-up, calibrated batches of ~10 ms, median of 11) with Open MPI's OpenSHMEM.
 * PE 0 targets PE 1. Prints lines in the unicomm bench format:
 *   BENCH,<op>,<ranks>,<bytes>,<iters>,<ns_per_op>,,0
 * Usage: oshrun -np 2 ./shmem_rma [min_bytes max_bytes factor barrier_iters]
 *        oshrun -np 4 ./shmem_rma barrier [barrier_iters]
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPEATS 11
#define TARGET_NS 10000000.0
#define WARMUP_NS 40000000.0

static char *dst, *src, *local;
static long *sig;
static int me, npes;

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

enum op { PUT, GET, PUT_SIGNAL, FETCH_ADD };

static void batch(enum op op, size_t bytes, long iters) {
    for (long i = 0; i < iters; i++) {
        switch (op) {
        case PUT: shmem_putmem(dst, src, bytes, 1); shmem_quiet(); break;
        case GET: shmem_getmem(local, dst, bytes, 1); break;
        /* OpenSHMEM 1.4 (Open MPI 4.1) has no put-with-signal: data, fence, then the signal. */
        case PUT_SIGNAL: shmem_putmem(dst, src, bytes, 1); shmem_fence(); shmem_long_atomic_add(sig, 1, 1); shmem_quiet(); break;
        case FETCH_ADD: (void) shmem_long_atomic_fetch_add(sig + 1, 1, 1); break;
        }
    }
}

static double timed(enum op op, size_t bytes, long iters) {
    double t0 = now_ns();
    batch(op, bytes, iters);
    return now_ns() - t0;
}

static long calibrate(enum op op, size_t bytes) {
    long iters = 1;
    for (double spent = 0; spent < WARMUP_NS && iters < (1L << 30); iters *= 2) spent += timed(op, bytes, iters);
    iters = 1;
    while (iters < (1L << 30)) {
        double t = timed(op, bytes, iters);
        if (t >= TARGET_NS / 4) return iters * 4;
        long mul = t <= 0 ? 16 : (long) (TARGET_NS / 4 / t);
        iters *= mul < 2 ? 2 : mul > 16 ? 16 : mul;
    }
    return iters;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Interleaved like the Java side: each op calibrated, then REPEATS rounds of all ops, medians. */
static void measure(const enum op *ops, const char **names, int nops, size_t bytes) {
    long iters[4];
    double per[4][REPEATS];
    for (int o = 0; o < nops; o++) iters[o] = calibrate(ops[o], bytes);
    for (int r = 0; r < REPEATS; r++)
        for (int o = 0; o < nops; o++) per[o][r] = timed(ops[o], bytes, iters[o]) / iters[o];
    for (int o = 0; o < nops; o++) {
        qsort(per[o], REPEATS, sizeof(double), cmp_double);
        printf("BENCH,%s,%d,%zu,%ld,%.3f,,0.000\n", names[o], npes, ops[o] == FETCH_ADD ? (size_t) 0 : bytes, iters[o], per[o][REPEATS / 2]);
    }
    fflush(stdout);
}

static void barrier_bench(long iters) {
    double per[5];
    for (long i = 0; i < iters; i++) shmem_barrier_all(); /* warm-up */
    for (int r = 0; r < 5; r++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) shmem_barrier_all();
        per[r] = (now_ns() - t0) / iters;
    }
    qsort(per, 5, sizeof(double), cmp_double);
    if (me == 0) printf("BENCH,barrier,%d,0,%ld,%.3f,,0.000\n", npes, iters, per[2]);
    fflush(stdout);
}

/* PE 0 and 1 bounce an 8-byte value; half the round trip is the one-way latency. */
static void pingpong(long iters) {
    long *flag = sig + 2;
    double per[5];
    long round = 0;
    shmem_barrier_all();
    for (int r = 0; r < 6; r++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) {
            round++;
            if (me == 0) {
                shmem_long_p(flag, round, 1);
                shmem_long_wait_until(flag, SHMEM_CMP_GE, round);
            } else if (me == 1) {
                shmem_long_wait_until(flag, SHMEM_CMP_GE, round);
                shmem_long_p(flag, round, 0);
            }
        }
        if (r > 0) per[r - 1] = (now_ns() - t0) / iters / 2;
    }
    qsort(per, 5, sizeof(double), cmp_double);
    if (me == 0) printf("BENCH,p-pingpong/2,%d,8,%ld,%.3f,,0.000\n", npes, iters, per[2]);
    fflush(stdout);
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (argc > 1 && strcmp(argv[1], "barrier") == 0) {
        barrier_bench(argc > 2 ? atol(argv[2]) : 20000);
        shmem_finalize();
        return 0;
    }
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "shmem_rma needs at least 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    size_t min = argc > 3 ? strtoull(argv[1], 0, 10) : 8, max = argc > 3 ? strtoull(argv[2], 0, 10) : 64u << 20;
    int factor = argc > 3 ? atoi(argv[3]) : 2;
    long barrier_iters = argc > 4 ? atol(argv[4]) : 20000;
    dst = shmem_malloc(max);
    sig = shmem_malloc(64);
    src = malloc(max);
    local = malloc(max);
    if (!dst || !sig || !src || !local) {
        fprintf(stderr, "PE %d: cannot allocate %zu bytes\n", me, max);
        shmem_global_exit(1);
    }
    memset(src, 7, max);
    memset(local, 1, max);
    memset(dst, 0, max);
    memset(sig, 0, 64);
    shmem_barrier_all();
    if (me == 0) {
        const enum op ops[] = {PUT, GET, PUT_SIGNAL};
        const char *names[] = {"put+quiet", "get", "put-fence-add+quiet"};
        for (size_t s = min; s <= max; s *= factor) measure(ops, names, 3, s);
        const enum op fadd[] = {FETCH_ADD};
        const char *fname[] = {"atomic-fetch-add"};
        measure(fadd, fname, 1, 8);
    }
    shmem_barrier_all();
    pingpong(barrier_iters);
    barrier_bench(barrier_iters);
    shmem_free(dst);
    shmem_free(sig);
    shmem_finalize();
    return 0;
}
