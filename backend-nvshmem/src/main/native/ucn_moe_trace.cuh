/*
 * Phase tracing of the MoE kernels (UCN_MOE_TRACE): off by default, one uniform branch per phase.
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_sync.cuh"

/*
 * Phase tracing for kernel work (UCN_MOE_TRACE=<file prefix> in the environment, read at the first
 * MoE call): thread 0 of the first and of the last block notes when each phase ended, in ns after
 * the kernel started on that block, into moe_trace_buf; the next MoE call copies the notes to
 * <prefix>.<pid> (the host has seen the kernel end by then). Off by default: a uniform branch per phase.
 */
#define MOE_TRACE_PHASES 10
__device__ int moe_trace_on;
#define MOE_TRACE_KERNELS 6
__device__ unsigned long long moe_trace_buf[MOE_TRACE_KERNELS][2][MOE_TRACE_PHASES + 2]; // [kernel][first, last block][id, phases, ends]
struct moe_trace {
    unsigned long long t[MOE_TRACE_PHASES];
    int n;
};
__device__ __forceinline__ bool moe_tracing(void) {
    return moe_trace_on && threadIdx.x == 0 && (blockIdx.x == 0 || blockIdx.x == gridDim.x - 1);
}
__device__ __forceinline__ void moe_mark_phase(moe_trace &tr) {
    if (moe_tracing() && tr.n < MOE_TRACE_PHASES) tr.t[tr.n++] = moe_now();
}
/*
 * Kernel span for benchmarks (with kernel timing on): the first block's start and the last block's end
 * by the device timer, across the operation's kernels, like a profiler's kernel duration (CUDA events
 * also count launch and tear-down). Every block's thread 0 updates both words.
 */
__device__ int moe_span_on;
__device__ unsigned long long moe_span[2]; // [earliest block start, latest block end]
__device__ __forceinline__ void moe_span_mark(int which) {
    if (moe_span_on && threadIdx.x == 0) {
        if (which == 0) atomicMin(&moe_span[0], moe_now());
        else atomicMax(&moe_span[1], moe_now());
    }
}
/* kernel: 1 ll dispatch, 2 ll combine, 3 normal prep, 4 normal dispatch, 5 normal combine. */
__device__ void moe_trace_end(const moe_trace &tr, int kernel) {
    moe_span_mark(1);
    if (!moe_tracing()) return;
    unsigned long long *b = moe_trace_buf[kernel][blockIdx.x == 0 ? 0 : 1];
    b[0] = (unsigned long long) kernel;
    b[1] = (unsigned long long) tr.n;
    for (int i = 1; i < tr.n; i++) b[1 + i] = tr.t[i] - tr.t[0];
}
#define MOE_TRACE_BEGIN moe_span_mark(0); moe_trace tr; tr.n = 0; moe_mark_phase(tr)
#define MOE_PHASE moe_mark_phase(tr)
