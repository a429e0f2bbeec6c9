/*
 * Same-run bandwidth ceilings for `unicomm bench moe --roofline` (and the per-pair table of
 * scripts/gpu-run.sh): what the GPUs of the job can move, measured with a copy kernel that uses
 * every SM (16-byte loads and stores) and with the copy engines, so the MoE rows can be put
 * against a floor instead of a copy that is not a limit. One process per PE, PE r on GPU r % GPUs.
 *   hbm_copy   every PE at once: device memory to device memory on its own GPU (the local share)
 *   pair_pull  PE 0 alone reads peer p's memory (one direction of one pair), all SMs
 *   pair_push  PE 0 alone writes peer p's memory, all SMs
 *   pair_ce    PE 0 alone, cudaMemcpyAsync from peer p (copy engine)
 *   all_pull   every PE at once reads an equal share from every peer: both directions of every
 *              link busy, as in a MoE operation; GB/s = bytes this PE received per second
 *   all_push   every PE at once writes an equal share to every peer (GB/s = bytes sent)
 *   all_ce     as all_pull with the copy engines (one stream per peer)
 * Each figure: best of REPS runs, each between host barriers, timed with CUDA events. Output:
 *   roof,<kind>,<pe>,<peer or -1>,<bytes>,<us>,<GB/s>
 * Bootstrap: NVSHMEM unique id through a file in $UNICOMM_FILE_STORE; $UNICOMM_RANK, $UNICOMM_WORLD_SIZE.
 * argv[1]: bytes per measurement (default 256 MiB).
 */
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <unistd.h>
#include "ref_nvshmem.h" /* CK, init_nvshmem */

#define REPS 5
#define MAX_PES 64

struct segs {
    int4 *dst[MAX_PES];
    const int4 *src[MAX_PES];
    int n;
    long long vecs; /* 16-byte vectors per segment */
};

/* Block b copies segment b % n; the blocks of one segment stride over it, four vectors per step. */
__global__ void __launch_bounds__(512) copy_kernel(segs s) {
    int seg = blockIdx.x % s.n, per = gridDim.x / s.n;
    long long stride = (long long) per * blockDim.x, i = (long long) (blockIdx.x / s.n) * blockDim.x + threadIdx.x;
    int4 *d = s.dst[seg];
    const int4 *src = s.src[seg];
    for (; i + 3 * stride < s.vecs; i += 4 * stride) {
        int4 a = __ldcg(src + i), b = __ldcg(src + i + stride), c = __ldcg(src + i + 2 * stride), e = __ldcg(src + i + 3 * stride);
        d[i] = a; d[i + stride] = b; d[i + 2 * stride] = c; d[i + 3 * stride] = e;
    }
    for (; i < s.vecs; i += stride) d[i] = __ldcg(src + i);
}

static int sms;
static cudaStream_t st[MAX_PES];
static cudaEvent_t ev0, ev1, evs[MAX_PES];

/* Microseconds of one timed copy: the SM kernel over s, or (ce) one copy-engine copy per segment, one stream each. */
static float timed(const segs &s, int ce) {
    CK(cudaEventRecord(ev0, st[0]));
    if (!ce) {
        int grid = (sms * 4 / s.n) * s.n; /* four 512-thread blocks per SM: every SM busy, divisible by the segments */
        if (grid < s.n) grid = s.n;
        copy_kernel<<<grid, 512, 0, st[0]>>>(s);
        CK(cudaGetLastError());
    } else {
        for (int i = 1; i < s.n; i++) CK(cudaStreamWaitEvent(st[i], ev0, 0));
        for (int i = 0; i < s.n; i++) {
            CK(cudaMemcpyAsync(s.dst[i], s.src[i], s.vecs * 16, cudaMemcpyDefault, st[i]));
            if (i > 0) {
                CK(cudaEventRecord(evs[i], st[i]));
                CK(cudaStreamWaitEvent(st[0], evs[i], 0));
            }
        }
    }
    CK(cudaEventRecord(ev1, st[0]));
    CK(cudaEventSynchronize(ev1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, ev0, ev1));
    return ms * 1000.f;
}

/* Best of REPS; every PE takes part in the barriers, only those with active != 0 copy. */
static void measure(const char *kind, int rank, int peer, const segs &s, int ce, int active) {
    float best = 1e30f;
    if (active) timed(s, ce); /* warm-up */
    for (int r = 0; r < REPS; r++) {
        nvshmem_barrier_all();
        if (!active) continue;
        float us = timed(s, ce);
        if (us < best) best = us;
    }
    nvshmem_barrier_all();
    if (!active) return;
    long long bytes = s.vecs * 16 * s.n;
    printf("roof,%s,%d,%d,%lld,%.2f,%.1f\n", kind, rank, peer, bytes, best, bytes / best / 1e3);
    fflush(stdout);
}

int main(int argc, char **argv) {
    int rank = atoi(getenv("UNICOMM_RANK"));
    int size = atoi(getenv("UNICOMM_WORLD_SIZE"));
    const char *dir = getenv("UNICOMM_FILE_STORE");
    long long bytes = argc > 1 ? atoll(argv[1]) : (256LL << 20);
    if (size < 1 || size > MAX_PES) { fprintf(stderr, "1..%d PEs\n", MAX_PES); return 2; }
    bytes -= bytes % ((long long) 1024 * (size > 1 ? size - 1 : 1)); /* whole vectors in every share */
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    int dev = rank % ndev;
    CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    init_nvshmem(rank, size, dir, "roof_uid");

    char *sym = (char *) nvshmem_align(2u << 20, bytes);
    char *a, *b;
    CK(cudaMalloc((void **) &a, bytes));
    CK(cudaMalloc((void **) &b, bytes));
    CK(cudaMemset(a, 1, bytes));
    CK(cudaMemset(b, 2, bytes));
    CK(cudaMemset(sym, 3, bytes));
    for (int i = 0; i < MAX_PES; i++) CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
    CK(cudaEventCreate(&ev0));
    CK(cudaEventCreate(&ev1));
    for (int i = 0; i < MAX_PES; i++) CK(cudaEventCreateWithFlags(&evs[i], cudaEventDisableTiming));
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    fprintf(stderr, "nvlink_ref: PE %d of %d on GPU %d of %d (%d SMs), %lld bytes per measurement\n", rank, size, dev, ndev, sms, bytes);

    segs s;
    s.n = 1;
    s.vecs = bytes / 16;
    s.dst[0] = (int4 *) b;
    s.src[0] = (const int4 *) a;
    measure("hbm_copy", rank, -1, s, 0, 1);
    if (size > 1) {
        for (int p = 1; p < size; p++) {
            char *peer = (char *) nvshmem_ptr(sym, p);
            if (rank == 0 && peer == NULL) { fprintf(stderr, "PE %d's memory is not mapped here\n", p); return 4; }
            s.n = 1;
            s.vecs = bytes / 16;
            s.dst[0] = (int4 *) b;
            s.src[0] = (const int4 *) peer;
            measure("pair_pull", rank, p, s, 0, rank == 0);
            measure("pair_ce", rank, p, s, 1, rank == 0);
            s.dst[0] = (int4 *) peer;
            s.src[0] = (const int4 *) a;
            measure("pair_push", rank, p, s, 0, rank == 0);
        }
        /* Every PE with every peer at once: share q of a peer's area belongs to its q-th source, no two writers overlap. */
        long long share = bytes / (size - 1);
        segs pull, push;
        pull.n = push.n = size - 1;
        pull.vecs = push.vecs = share / 16;
        for (int p = 0, q = 0; p < size; p++) {
            if (p == rank) continue;
            char *peer = (char *) nvshmem_ptr(sym, p);
            if (peer == NULL) { fprintf(stderr, "PE %d's memory is not mapped into PE %d\n", p, rank); return 4; }
            int slot = rank < p ? rank : rank - 1; /* this PE's index among p's sources */
            pull.src[q] = (const int4 *) (peer + (long long) slot * share);
            pull.dst[q] = (int4 *) (b + (long long) q * share);
            push.src[q] = (const int4 *) (a + (long long) q * share);
            push.dst[q] = (int4 *) (peer + (long long) slot * share);
            q++;
        }
        measure("all_pull", rank, -1, pull, 0, 1);
        measure("all_ce", rank, -1, pull, 1, 1);
        measure("all_push", rank, -1, push, 0, 1);
    }
    nvshmem_barrier_all();
    nvshmem_free(sym);
    cudaFree(a);
    cudaFree(b);
    nvshmem_finalize();
    return 0;
}
