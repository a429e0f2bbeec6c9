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
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "ref_nvshmem.h" /* CK, init_nvshmem */

/* Each figure is the best of REPS timed batches (the Java benchmark does the same). */
#define REPS 5

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    int rank = atoi(getenv("UNICOMM_RANK"));
    int size = atoi(getenv("UNICOMM_WORLD_SIZE"));
    const char *dir = getenv("UNICOMM_FILE_STORE");
    /* argv[1]: comma-separated sizes in bytes (what the Java worker measures); default 8 B .. 256 MiB. */
    size_t sizes[64];
    int nsizes = 0;
    size_t max_bytes = 0;
    if (argc > 1) {
        for (char *p = argv[1]; *p && nsizes < 64; ) {
            sizes[nsizes] = strtoull(p, &p, 10);
            if (sizes[nsizes] > max_bytes) max_bytes = sizes[nsizes];
            nsizes++;
            if (*p == ',') p++;
        }
    } else {
        static const size_t defaults[] = {8, 64, 512, 4096, 32768, 262144, 1u << 20, 4u << 20, 16u << 20, 64u << 20, 256u << 20};
        for (nsizes = 0; nsizes < (int) (sizeof defaults / sizeof defaults[0]); nsizes++) sizes[nsizes] = defaults[nsizes];
        max_bytes = 256u << 20;
    }
    int ndev = 1;
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(rank % ndev)); /* as the Java side: local rank modulo the visible GPUs */
    init_nvshmem(rank, size, dir, "ref_uid");

    /* UNICOMM_REF_PAD: bytes to allocate first, so the buffer sits where the Java side's does (after its scratch). */
    const char *pad = getenv("UNICOMM_REF_PAD");
    if (pad != NULL && strtoull(pad, NULL, 10) > 0) nvshmem_align(2u << 20, strtoull(pad, NULL, 10));
    char *sym = (char *) nvshmem_align(2u << 20, max_bytes);
    uint64_t *done = (uint64_t *) nvshmem_malloc(64);
    CK(cudaMemset(done, 0, 64));
    char *local;
    CK(cudaMalloc((void **) &local, max_bytes));
    CK(cudaMemset(local, 1, max_bytes));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    nvshmem_barrier_all();
    if (rank == 0) {
        for (int si = 0; si < nsizes; si++) {
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
        for (int pe = 1; pe < size; pe++) nvshmemx_signal_op_on_stream(done, 1, NVSHMEM_SIGNAL_SET, pe, s);
        nvshmemx_quiet_on_stream(s);
        CK(cudaStreamSynchronize(s));
    } else {
        /* Wait from the host (a small copy now and then), not in a GPU barrier kernel, like the Java side. */
        cudaStream_t poll;
        CK(cudaStreamCreateWithFlags(&poll, cudaStreamNonBlocking));
        uint64_t *v;
        CK(cudaMallocHost((void **) &v, 8));
        for (*v = 0; *v != 1; usleep(200)) {
            CK(cudaMemcpyAsync(v, done, 8, cudaMemcpyDeviceToHost, poll));
            CK(cudaStreamSynchronize(poll));
        }
    }
    nvshmem_barrier_all();
    nvshmem_free(sym);
    cudaFree(local);
    nvshmem_finalize();
    return 0;
}
