/*
 * Same-run C reference for `unicomm bench rma --backend nvshmem`: the puts and gets the Java
 * benchmark issues (nvshmemx_putmem_on_stream / nvshmemx_getmem_on_stream from PE 0 to PE 1,
 * device-memory source, symmetric destination 2 MiB aligned), timed the same way, best of 5
 * batches, printed as CSV lines
 *   ref,<op>,<bytes>,<iters>,<us per op>,<GB/s>
 * Ops: put_bw / get_bw (issue `iters` ops on a stream, then synchronize), put_issue (host time
 * to enqueue one small stream-ordered put, averaged), put_blocking (put + stream synchronize).
 * Bootstrap: NVSHMEM unique id through a file in $UNICOMM_FILE_STORE; rank from $UNICOMM_RANK.
 */
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Each figure is the best of REPS timed batches (the Java benchmark does the same). */
#define REPS 5
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorName(e)); exit(2); } } while (0)

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void exchange_uid(int rank, const char *dir, nvshmemx_uniqueid_t *id) {
    char path[1024], tmp[1100];
    snprintf(path, sizeof path, "%s/ref_uid", dir);
    if (rank == 0) {
        nvshmemx_get_uniqueid(id);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "wb");
        fwrite(id, sizeof *id, 1, f);
        fclose(f);
        rename(tmp, path);
        return;
    }
    for (int i = 0; i < 600000; i++) {
        FILE *f = fopen(path, "rb");
        if (f) {
            size_t got = fread(id, sizeof *id, 1, f);
            fclose(f);
            if (got == 1) return;
        }
        usleep(100);
    }
    fprintf(stderr, "rank %d: no unique id in %s\n", rank, path);
    exit(3);
}

int main(int argc, char **argv) {
    int rank = atoi(getenv("UNICOMM_RANK"));
    int size = atoi(getenv("UNICOMM_WORLD_SIZE"));
    const char *dir = getenv("UNICOMM_FILE_STORE");
    size_t max_bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (256u << 20);
    CK(cudaSetDevice(0));
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    exchange_uid(rank, dir, &id);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);

    char *sym = (char *) nvshmem_align(2u << 20, max_bytes);
    char *local;
    CK(cudaMalloc((void **) &local, max_bytes));
    CK(cudaMemset(local, 1, max_bytes));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    nvshmem_barrier_all();
    if (rank == 0) {
        static const size_t sizes[] = {8, 64, 512, 4096, 32768, 262144, 1u << 20, 4u << 20, 16u << 20, 64u << 20, 256u << 20};
        for (int si = 0; si < (int) (sizeof sizes / sizeof sizes[0]) && sizes[si] <= max_bytes; si++) {
            size_t bytes = sizes[si];
            int iters = (int) (bytes >= (1u << 20) ? (size_t) 2 * (1u << 30) / bytes : 1000);
            if (iters < 10) iters = 10;
            if (iters > 1000) iters = 1000;
            for (int op = 0; op < 2; op++) {
                for (int w = 0; w < 3; w++) {
                    if (op == 0) nvshmemx_putmem_on_stream(sym, local, bytes, 1, s);
                    else nvshmemx_getmem_on_stream(local, sym, bytes, 1, s);
                }
                CK(cudaStreamSynchronize(s));
                double us = 1e30;
                for (int rep = 0; rep < REPS; rep++) {
                    double t0 = now_us();
                    for (int i = 0; i < iters; i++) {
                        if (op == 0) nvshmemx_putmem_on_stream(sym, local, bytes, 1, s);
                        else nvshmemx_getmem_on_stream(local, sym, bytes, 1, s);
                    }
                    CK(cudaStreamSynchronize(s));
                    double t = (now_us() - t0) / iters;
                    if (t < us) us = t;
                }
                printf("ref,%s,%zu,%d,%.3f,%.3f\n", op == 0 ? "put_bw" : "get_bw", bytes, iters, us, bytes / us / 1e3);
            }
            if (bytes <= (64u << 10)) {
                double issue = 1e30, blocking = 1e30;
                for (int rep = 0; rep < REPS; rep++) {
                    double t0 = now_us();
                    for (int i = 0; i < 1000; i++) nvshmemx_putmem_on_stream(sym, local, bytes, 1, s);
                    double t = (now_us() - t0) / 1000;
                    if (t < issue) issue = t;
                    CK(cudaStreamSynchronize(s));
                    t0 = now_us();
                    for (int i = 0; i < 1000; i++) {
                        nvshmemx_putmem_on_stream(sym, local, bytes, 1, s);
                        CK(cudaStreamSynchronize(s));
                    }
                    t = (now_us() - t0) / 1000;
                    if (t < blocking) blocking = t;
                }
                printf("ref,put_issue,%zu,%d,%.3f,%.3f\n", bytes, 1000, issue, bytes / issue / 1e3);
                printf("ref,put_blocking,%zu,%d,%.3f,%.3f\n", bytes, 1000, blocking, bytes / blocking / 1e3);
            }
        }
        fflush(stdout);
    }
    nvshmem_barrier_all();
    nvshmem_free(sym);
    cudaFree(local);
    nvshmem_finalize();
    return 0;
}
