/*
 * Low-latency mode, dispatch: the count exchange and the send of every row (ucn_moe_ll_pack.cuh).
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_trace.cuh"
#include "ucn_moe_ll_pack.cuh"

/*
 * Grid: every block builds, in shared memory, a bitmap per expert of the tokens selecting it
 * (the slot of (t, e) among this PE's tokens is the popcount of the bits before t); block 0 sends
 * the per-expert counts to every PE (count matrix [src][E], tagged); every block waits for the
 * whole matrix, so a slot's base (tokens of lower source ranks) is known everywhere without
 * another exchange. Then the rows go straight into the experts' PEs (bf16, or e4m3 + a scale per 128
 * channels quantised on the way; load/store FP8: moe_ll_store_pieces, else moe_ll_rows_per_slot), the
 * (expert, slot) pairs are recorded for the combine, and each block signals every PE.
 */
template <bool NV, bool WIDE, bool MASKED>
__global__ void __launch_bounds__(1024) moe_ll_dispatch_kernel(ucn_moe_args args) {
    extern __shared__ unsigned int bits[];
    const ucn_moe_args a = moe_view<MASKED>(args);
    MOE_TRACE_BEGIN;
    int E = (int) a.experts, R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts;
    moe_seq q = moe_sequence(a, 1);
    int me = (int) a.rank, maxT = (int) a.max_tokens, p = q.p;
    int W = (maxT + 31) / 32;
    const long long *idx = (const long long *) a.topk_idx;
    long long *err = (long long *) a.err;
    const long long *peers = (const long long *) a.peers;
    for (int i = threadIdx.x; i < E * W; i += blockDim.x) bits[i] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < T * K; i += blockDim.x) {
        int t = i / K, e = moe_live_expert(a, idx, t, i % K, K, E, err, blockIdx.x == 0);
        if (e >= 0) atomicOr(&bits[e * W + t / 32], 1u << (t % 32));
    }
    __syncthreads();
    MOE_PHASE; // 1: bitmaps built
    unsigned long long tag = (unsigned long long) (unsigned int) q.gen << 32;
    const unsigned long long *m = (const unsigned long long *) (peers[me] + a.off_cnt) + (long long) p * R * E;
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < E * R; i += blockDim.x) {
            int e = i % E, d = i / E;
            if (!moe_live(a, d)) continue; // an inactive PE gets nothing
            unsigned int c = 0;
            for (int j = 0; j < W; j++) c += __popc(bits[e * W + j]);
            moe_put_word<NV>(a, d, a.off_cnt + (((long long) p * R + me) * E + e) * 8, tag | c);
        }
    }
    float first_scale = 0.f;
    int4 first_q = !NV && a.fp8 ? moe_ll_first_piece(a, &first_scale) : make_int4(0, 0, 0, 0);
    unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
    for (int i = threadIdx.x; i < R * E; i += blockDim.x)
        if (moe_live(a, i / E)) moe_wait_tag(a, m + i, (unsigned int) q.gen, deadline, moe_abort_word(a), err, i / E);
    __syncthreads();
    MOE_PHASE; // 2: count matrix complete
    // Drops under the mask as it is now: an elastic wait above may have found a peer gone (a block sees its own marks).
    if (blockIdx.x == 0) moe_count_drops(a, threadIdx.x, blockDim.x, T);
    if (blockIdx.x == 0) {
        for (int le = threadIdx.x; le < L; le += blockDim.x) {
            int n = 0;
            for (int s = 0; s < R; s++)
                if (moe_live(a, s)) n += (int) (unsigned int) m[(long long) s * E + (long long) me * L + le]; // inactive: stale words
            ((int *) a.recv_count)[p * L + le] = n;
            ((int *) a.info)[le] = n;
        }
    }
    int2 *route = (int2 *) a.route + (long long) p * maxT * K;
    if (!NV && a.fp8) moe_ll_store_pieces<WIDE>(a, bits, m, W, p, tag, route, first_q, first_scale);
    else moe_ll_rows_per_slot<NV, WIDE>(a, bits, m, W, p, tag, route);
    MOE_PHASE; // 3: rows written
    moe_signal_all<NV>(a, a.off_done, (long long) p * R + me);
    MOE_PHASE; // 4: signalled
    if (blockIdx.x != 0) moe_trace_end(tr, 1);
    // Block 0 stays to see every PE's tokens arrive, then tells the host (the receive hook polls).
    if (blockIdx.x != 0) return;
    if (WIDE) {
        const unsigned long long *done = (const unsigned long long *) (peers[me] + a.off_done);
        unsigned long long until = moe_now() + (unsigned long long) a.timeout_ns;
        for (int d = threadIdx.x; d < R; d += blockDim.x)
            if (moe_live(a, d)) moe_wait_ge(a, done + (long long) p * R + d, q.expected, until, moe_abort_word(a), err, d, 3);
    } else if (threadIdx.x < R && moe_live(a, threadIdx.x)) {
        const unsigned long long *done = (const unsigned long long *) (peers[me] + a.off_done);
        unsigned long long until = moe_now() + (unsigned long long) a.timeout_ns;
        moe_wait_ge(a, done + (long long) p * R + threadIdx.x, q.expected, until, moe_abort_word(a), err, threadIdx.x, 3);
    }
    __syncthreads();
    MOE_PHASE; // 5: every PE's rows arrived
    moe_trace_end(tr, 1);
    if (threadIdx.x == 0) {
        moe_publish(a);
        if (a.ctl != 0) { // every block has read the counters (their arrival signals came after)
            volatile unsigned long long *ctl = (volatile unsigned long long *) a.ctl;
            ctl[0] = q.gen;
            ctl[1] = ctl[1] + 1;
        }
    }
}
