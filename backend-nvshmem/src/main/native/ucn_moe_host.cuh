/*
 * Host entries of the MoE kernels (ucn_shim.h's ucn_ops_moe_*): argument checks, launch parameters,
 * kernel timing and trace files. Uses ucn_ops.cu's error slot and device helpers (fail, cuda_check, ...).
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_layout.cuh"
#include "ucn_moe_normal_dispatch.cuh"
#include "ucn_moe_normal_combine.cuh"
#include "ucn_moe_ll_dispatch.cuh"
#include "ucn_moe_ll_combine.cuh"

// ------------------------------------------------------------------------------ host entries

/*
 * Kernel timing for benchmarks (off by default): events around the last operation's kernels. Mode 2
 * (aligned) first queues a device wait and a barrier of all PEs, as DeepEP's bench does with a large
 * matmul and an all-reduce: the host has queued the events and kernels while the GPU still waits, so
 * neither the launch gap nor the PEs' host skew is inside the events.
 */
static int moe_profiling;
static cudaEvent_t moe_ev[3];
static int moe_ev_kernels;

/* Holds the stream for ns nanoseconds of device time. */
__global__ void moe_hold_kernel(unsigned long long ns) {
    unsigned long long until = moe_now() + ns;
    while (moe_now() < until) __nanosleep(1000);
}

static void moe_align(long long stream) {
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(STREAM(stream), &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone) return;
    moe_hold_kernel<<<1, 32, 0, STREAM(stream)>>>(50000ULL); // far longer than queueing the rest of the operation
    nvshmemx_barrier_all_on_stream(STREAM(stream));
}

static void moe_mark(int i, long long stream) {
    if (!moe_profiling) return;
    if (i == 0) { // aligned: behind a barrier; then a fresh span for this operation, queued before its first event
        if (moe_profiling == 2) moe_align(stream);
        static const unsigned long long fresh[2] = {~0ULL, 0ULL};
        cudaMemcpyToSymbolAsync(moe_span, fresh, sizeof fresh, 0, cudaMemcpyHostToDevice, STREAM(stream));
    }
    cudaEventRecord(moe_ev[i], STREAM(stream));
}

static int moe_args(const long long *raw, int n, ucn_moe_args *a, const char *op) {
    if (n != UCN_MOE_ARGS_WORDS) return fail(UCN_ERR_ARGUMENT, op, n, "argument block has the wrong size (Java and native out of step)");
    memcpy(a, raw, sizeof *a);
    return UCN_OK;
}

static int moe_smem(const void *kernel, long long bytes, const char *op) {
    if (bytes <= 48 * 1024) return UCN_OK;
    return cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes), op);
}

/* Up to this many ranks the kernels keep one 32-bit rank mask per token (MoeKernelLimits.MASK_RANKS); past it, their WIDE variants. */
#define MOE_MASK_RANKS 32

typedef void (*moe_kernel)(ucn_moe_args);

/* Launches one kernel on the operation's stream (opting in to its shared memory first). */
static int moe_launch(moe_kernel k, const char *name, unsigned grid, unsigned block, long long smem, const ucn_moe_args &a) {
    int rc = moe_smem((const void *) k, smem, name);
    if (rc) return rc;
    k<<<grid, block, smem, STREAM(a.stream)>>>(a);
    return launch_check(name);
}

/* An operation of one kernel, between the timing marks. */
static int moe_timed(moe_kernel k, const char *name, unsigned grid, unsigned block, long long smem, const ucn_moe_args &a) {
    moe_ev_kernels = 1;
    moe_mark(0, a.stream);
    int rc = moe_launch(k, name, grid, block, smem, a);
    moe_mark(2, a.stream);
    return rc;
}

/* UCN_MOE_TRACE=<prefix>: the kernels note their phase times (moe_trace_buf); each MoE call first
   appends the previous kernel's notes to <prefix>.<pid>, one line per block: kernel id, block, ends (ns). */
static FILE *moe_trace_file;

static void moe_trace_flush(void) {
    static int started;
    if (!started) {
        started = 1;
        const char *prefix = getenv("UCN_MOE_TRACE");
        if (prefix == NULL || *prefix == 0) return;
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", prefix, (int) getpid());
        moe_trace_file = fopen(path, "w");
        int on = moe_trace_file != NULL;
        if (on) cudaMemcpyToSymbol(moe_trace_on, &on, sizeof on);
        return;
    }
    if (moe_trace_file == NULL) return;
    static unsigned long long b[MOE_TRACE_KERNELS][2][MOE_TRACE_PHASES + 2];
    if (cudaMemcpyFromSymbol(b, moe_trace_buf, sizeof b) != cudaSuccess) return;
    for (int k = 0; k < MOE_TRACE_KERNELS; k++)
        for (int f = 0; f < 2; f++) {
            if (b[k][f][0] == 0) continue;
            fprintf(moe_trace_file, "MOETRACE %llu %s", b[k][f][0], f == 0 ? "first" : "last");
            for (unsigned long long i = 1; i < b[k][f][1] && i < MOE_TRACE_PHASES; i++) fprintf(moe_trace_file, " %llu", b[k][f][1 + i]);
            fprintf(moe_trace_file, "\n");
        }
    fflush(moe_trace_file);
    memset(b, 0, sizeof b);
    cudaMemcpyToSymbol(moe_trace_buf, b, sizeof b); // a call whose kernel notes nothing prints nothing
}

/* Every entry starts here: this thread's device, and the argument block checked and copied. */
#define MOE_PARSE(name)                         \
    ensure_device();                            \
    moe_trace_flush();                          \
    ucn_moe_args a;                              \
    int rc = moe_args(raw, n, &a, name);        \
    if (rc) return rc

/*
 * A low-latency kernel variant by transport (NVSHMEM or loads/stores), width (past MOE_MASK_RANKS: WIDE) and
 * whether it reads the active-rank mask: the unmasked variants (launched when a.all_live is set; moe_view) come last.
 */
static moe_kernel moe_pick(const ucn_moe_args &a, moe_kernel nv_wide, moe_kernel nv, moe_kernel ls_wide, moe_kernel ls,
                           moe_kernel nv_wide_all, moe_kernel nv_all, moe_kernel ls_wide_all, moe_kernel ls_all) {
    bool wide = a.nranks > MOE_MASK_RANKS;
    if (a.all_live != 0) return a.transport ? (wide ? nv_wide_all : nv_all) : (wide ? ls_wide_all : ls_all);
    return a.transport ? (wide ? nv_wide : nv) : (wide ? ls_wide : ls);
}

extern "C" {

/* Sets kernel timing: 0 off, 1 events as launched, 2 aligned (moe_align first). */
int ucn_ops_moe_profile(int on) {
    ensure_device();
    if (on < 0 || on > 2) return fail(UCN_ERR_ARGUMENT, "ucn_moe_profile", on, "mode must be 0 (off), 1 (as launched) or 2 (aligned)");
    if (on && !moe_profiling) {
        for (int i = 0; i < 3; i++) {
            int rc = cuda_check(cudaEventCreate(&moe_ev[i]), "cudaEventCreate");
            if (rc) return rc;
        }
    }
    moe_profiling = on;
    int span = on != 0;
    return cuda_check(cudaMemcpyToSymbol(moe_span_on, &span, sizeof span), "cudaMemcpyToSymbol(moe_span_on)");
}

/*
 * Milliseconds of the last operation's kernels: out[0] the first (count exchange or the only one), out[1] the
 * data kernel (0 if none), by CUDA events; out[2] the kernel span by the device timer (first block start to
 * last block end; 0 where the kernels do not mark it: the layout kernel, the NVSHMEM transport's pull combine).
 */
int ucn_ops_moe_times(float *out) {
    ensure_device();
    out[0] = out[1] = out[2] = 0.f;
    if (!moe_profiling) return fail(UCN_ERR_ARGUMENT, "ucn_moe_times", 0, "kernel timing is off");
    int rc = cuda_check(cudaEventSynchronize(moe_ev[2]), "cudaEventSynchronize");
    if (rc) return rc;
    unsigned long long span[2];
    if ((rc = cuda_check(cudaMemcpyFromSymbol(span, moe_span, sizeof span), "cudaMemcpyFromSymbol(moe_span)"))) return rc;
    if (span[0] != ~0ULL && span[1] > span[0]) out[2] = (float) ((span[1] - span[0]) / 1e6);
    if (moe_ev_kernels == 2) {
        if ((rc = cuda_check(cudaEventElapsedTime(&out[0], moe_ev[0], moe_ev[1]), "cudaEventElapsedTime"))) return rc;
        return cuda_check(cudaEventElapsedTime(&out[1], moe_ev[1], moe_ev[2]), "cudaEventElapsedTime");
    }
    return cuda_check(cudaEventElapsedTime(&out[0], moe_ev[0], moe_ev[2]), "cudaEventElapsedTime");
}

/* SMs of this PE's device and the most dynamic shared memory a block may opt in to. */
int ucn_ops_moe_device_info(int *sms, long long *smem) {
    ensure_device();
    int dev = 0, v = 0;
    int rc = cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
    if (rc) return rc;
    rc = cuda_check(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute(SMs)");
    if (rc) return rc;
    rc = cuda_check(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "cudaDeviceGetAttribute(smem)");
    *smem = v;
    return rc;
}

int ucn_ops_moe_layout(const long long *raw, int n) {
    MOE_PARSE("moe_layout_kernel");
    return moe_timed(a.nranks > MOE_MASK_RANKS ? moe_layout_kernel<true> : moe_layout_kernel<false>, "moe_layout_kernel", 1, 1024,
                     (a.experts + a.nranks) * 4, a);
}


/* Shared memory of the normal routing kernel (MoeKernelLimits.normalSharedBytes): up to 32 ranks a
   mask per token and a [32][R] scan, past 32 a [32][32] scan per group of 32 ranks and no masks. */
static long long moe_prep_smem(const ucn_moe_args &a) {
    return a.nranks <= MOE_MASK_RANKS ? (a.experts + 34 * a.nranks + a.tokens) * 4 : (a.experts + 2 * a.nranks + 32 * 32) * 4;
}

/* The data kernel of a normal dispatch, by transport, cached routing and rank count. */
static moe_kernel moe_normal_data(const ucn_moe_args &a, bool cached) {
    bool wide = a.nranks > MOE_MASK_RANKS;
    if (cached)
        return a.transport ? (wide ? moe_normal_dispatch_kernel<true, true, true> : moe_normal_dispatch_kernel<true, true, false>)
                           : (wide ? moe_normal_dispatch_kernel<false, true, true> : moe_normal_dispatch_kernel<false, true, false>);
    return a.transport ? (wide ? moe_normal_dispatch_kernel<true, false, true> : moe_normal_dispatch_kernel<true, false, false>)
                       : (wide ? moe_normal_dispatch_kernel<false, false, true> : moe_normal_dispatch_kernel<false, false, false>);
}

/* Normal dispatch: the count exchange (with cached routing: a barrier instead) and the data kernel. */
int ucn_ops_moe_normal_dispatch(const long long *raw, int n, int cached) {
    MOE_PARSE("moe_normal_dispatch_kernel");
    if (cached) /* no count exchange; the kernel itself waits until every PE has entered the operation */
        return moe_timed(moe_normal_data(a, true), "moe_normal_dispatch_kernel", (unsigned) a.blocks, (unsigned) a.threads, 0, a);
    bool wide = a.nranks > MOE_MASK_RANKS;
    moe_kernel prep = a.transport ? (wide ? moe_normal_prep_kernel<true, true> : moe_normal_prep_kernel<true, false>)
                                  : (wide ? moe_normal_prep_kernel<false, true> : moe_normal_prep_kernel<false, false>);
    moe_kernel data = moe_normal_data(a, false);
    moe_ev_kernels = 2;
    moe_mark(0, a.stream);
    /* A block per 256 tokens (at most this PE's blocks: they wait for each other, so all must be resident). */
    long long grid = (a.tokens + 255) / 256;
    if (grid > a.blocks) grid = a.blocks;
    if (grid < 1) grid = 1;
    if ((rc = moe_launch(prep, "moe_normal_prep_kernel", (unsigned) grid, 512, moe_prep_smem(a), a))) return rc;
    moe_mark(1, a.stream);
    rc = moe_launch(data, "moe_normal_dispatch_kernel", (unsigned) a.blocks, (unsigned) a.threads, 0, a);
    moe_mark(2, a.stream);
    return rc;
}

int ucn_ops_moe_normal_combine(const long long *raw, int n) {
    MOE_PARSE("moe_normal_combine_kernel");
    bool wide = a.nranks > MOE_MASK_RANKS;
    moe_kernel k = a.transport ? (wide ? moe_normal_combine_kernel<true, true> : moe_normal_combine_kernel<true, false>)
                               : (wide ? moe_normal_combine_kernel<false, true> : moe_normal_combine_kernel<false, false>);
    return moe_timed(k, "moe_normal_combine_kernel", (unsigned) a.blocks, (unsigned) a.threads, 0, a);
}

int ucn_ops_moe_ll_dispatch(const long long *raw, int n) {
    MOE_PARSE("moe_ll_dispatch_kernel");
    moe_kernel k = moe_pick(a, moe_ll_dispatch_kernel<true, true, true>, moe_ll_dispatch_kernel<true, false, true>,
                            moe_ll_dispatch_kernel<false, true, true>, moe_ll_dispatch_kernel<false, false, true>,
                            moe_ll_dispatch_kernel<true, true, false>, moe_ll_dispatch_kernel<true, false, false>,
                            moe_ll_dispatch_kernel<false, true, false>, moe_ll_dispatch_kernel<false, false, false>);
    return moe_timed(k, "moe_ll_dispatch_kernel", (unsigned) a.blocks, (unsigned) a.threads,
                     a.experts * ((a.max_tokens + 31) / 32) * 4, a);
}

int ucn_ops_moe_ll_combine(const long long *raw, int n) {
    MOE_PARSE("moe_ll_combine_kernel");
    // Loads/stores: the experts' PEs push summed rows; NVSHMEM transport: the owners pull every row.
    moe_kernel k = moe_pick(a, moe_ll_combine_kernel<true, true, true>, moe_ll_combine_kernel<true, false, true>,
                            moe_ll_combine_push_kernel<true, true>, moe_ll_combine_push_kernel<false, true>,
                            moe_ll_combine_kernel<true, true, false>, moe_ll_combine_kernel<true, false, false>,
                            moe_ll_combine_push_kernel<true, false>, moe_ll_combine_push_kernel<false, false>);
    return moe_timed(k, "moe_ll_combine_kernel", (unsigned) a.blocks, (unsigned) a.threads, 0, a);
}

}
