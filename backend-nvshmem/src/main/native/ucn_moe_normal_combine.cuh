/*
 * Normal mode, combine: stage y, signal, then pull every token's rows back and sum them.
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_trace.cuh"
#include "ucn_moe_rows.cuh"

/*
 * Grid: stages y (and weights) into this PE's receive area unless they are already there, signals
 * every PE, waits for all PEs' staging, then a warp per own token pulls the token's rows back from
 * every PE that received it and sums them in fp32 (bf16 once at the end), and sums the weights.
 */
template <bool NV, bool WIDE>
__global__ void __launch_bounds__(512) moe_normal_combine_kernel(ucn_moe_args a) {
    MOE_TRACE_BEGIN;
    int R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, me = (int) a.rank;
    int lane = threadIdx.x & 31;
    long long H = a.hidden, row_bytes = 2 * H;
    const long long *peers = (const long long *) a.peers;
    char *own = (char *) peers[me];
    int warps = gridDim.x * (blockDim.x >> 5), gw = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (a.pre_barrier != 0) {
        // Every active PE is past its previous combine (its pulls from this PE's receive area) before y is
        // staged there: each grid signals the ready counters once (moe_signal_all), every block waits for all.
        moe_signal_all<NV>(a, a.off_ready, me);
        unsigned long long until = moe_now() + (unsigned long long) a.timeout_ns;
        for (int d = threadIdx.x; d < R; d += blockDim.x)
            if (moe_live(a, d))
                moe_wait_ge(a, (const unsigned long long *) (own + a.off_ready) + d, (unsigned long long) a.pre_barrier, until,
                            moe_abort_word(a), (long long *) a.err, d, 6);
        __syncthreads();
    }
    if (a.y != 0)
        for (long long r = gw; r < a.recv_tokens; r += warps)
            moe_warp_copy(own + a.off_recv + r * row_bytes, (const char *) a.y + r * row_bytes, row_bytes, lane);
    if (a.y_w != 0)
        for (long long r = gw; r < a.recv_tokens; r += warps)
            moe_warp_copy(own + a.off_recv_w + r * K * 4, (const char *) a.y_w + r * K * 4, K * 4, lane);
    MOE_PHASE; // 1: staged
    moe_signal_all<NV>(a, a.off_ready, me);
    MOE_PHASE; // 2: signalled
    if (WIDE) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        for (int d = threadIdx.x; d < R; d += blockDim.x)
            if (moe_live(a, d))
                moe_wait_ge(a, (const unsigned long long *) (own + a.off_ready) + d, (unsigned long long) a.expected,
                            deadline, moe_abort_word(a), (long long *) a.err, d, 2);
    } else if (threadIdx.x < R && moe_live(a, threadIdx.x)) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        moe_wait_ge(a, (const unsigned long long *) (own + a.off_ready) + threadIdx.x, (unsigned long long) a.expected,
                    deadline, moe_abort_word(a), (long long *) a.err, threadIdx.x, 2);
    }
    __syncthreads();
    MOE_PHASE; // 3: every PE staged
    // Warp-uniform (lane 0's view), so no warp splits around its shuffles.
    bool ok = __shfl_sync(MOE_FULL, (int) moe_ok(a), 0);
    const int *pos = (const int *) a.pos, *send_off = (const int *) a.send_off;
    for (int t = gw; ok && t < T; t += warps) {
        int my_pe; // lane l's rank: l itself up to 32 ranks, past 32 the token's l-th destination (ascending)
        int my_slot = moe_token_dests<WIDE>(pos, send_off, R, t, lane, &my_pe);
        if (my_slot >= 0 && !moe_live(a, my_pe)) my_slot = -1; // an inactive PE's contribution is not summed
        unsigned int dests = __ballot_sync(MOE_FULL, my_slot >= 0);
        int4 *out = (int4 *) ((char *) a.out + t * row_bytes);
        // Loops stay warp-uniform so that every shuffle has all lanes; four 16-byte loads per lane
        // and source are in flight at once (the pull is latency bound otherwise).
        for (long long c0 = 0; c0 < H / 8; c0 += 128) {
            float acc[4][8];
#pragma unroll
            for (int u = 0; u < 4; u++)
#pragma unroll
                for (int i = 0; i < 8; i++) acc[u][i] = 0.f;
            if (NV) {
                for (unsigned int dm = dests; dm; dm &= dm - 1) {
                    int l = __ffs(dm) - 1, d = WIDE ? __shfl_sync(MOE_FULL, my_pe, l) : l;
                    long long slot = __shfl_sync(MOE_FULL, my_slot, l);
                    int4 v[4];
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        long long c = c0 + u * 32 + lane, first = (c0 + u * 32) * 16, n = min(512LL, row_bytes - first);
                        const int4 *part = moe_pull_512<NV>(a, d, a.off_recv + slot * row_bytes + first, n, u);
                        v[u] = c < H / 8 ? __ldcg(part + lane) : make_int4(0, 0, 0, 0);
                    }
#pragma unroll
                    for (int u = 0; u < 4; u++) bf16x8_add(acc[u], v[u], 1.f);
                }
            } else {
                // Loads and stores: two sources' loads in flight before either is added (a token of a
                // 2-PE job comes back from both PEs), the sum still in ascending PE order.
                for (unsigned int dm = dests; dm;) {
                    int l0 = __ffs(dm) - 1;
                    dm &= dm - 1;
                    int l1 = dm ? __ffs(dm) - 1 : l0;
                    bool two = dm != 0;
                    if (two) dm &= dm - 1;
                    int d0 = WIDE ? __shfl_sync(MOE_FULL, my_pe, l0) : l0, d1 = WIDE ? __shfl_sync(MOE_FULL, my_pe, l1) : l1;
                    const int4 *p0 = (const int4 *) (peers[d0] + a.off_recv + __shfl_sync(MOE_FULL, my_slot, l0) * row_bytes);
                    const int4 *p1 = (const int4 *) (peers[d1] + a.off_recv + __shfl_sync(MOE_FULL, my_slot, l1) * row_bytes);
                    int4 v0[4], v1[4];
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        long long c = c0 + u * 32 + lane;
                        v0[u] = c < H / 8 ? __ldcg(p0 + c) : make_int4(0, 0, 0, 0);
                        v1[u] = two && c < H / 8 ? __ldcg(p1 + c) : make_int4(0, 0, 0, 0);
                    }
#pragma unroll
                    for (int u = 0; u < 4; u++) bf16x8_add(acc[u], v0[u], 1.f);
                    if (two)
#pragma unroll
                        for (int u = 0; u < 4; u++) bf16x8_add(acc[u], v1[u], 1.f);
                }
            }
#pragma unroll
            for (int u = 0; u < 4; u++) {
                long long c = c0 + u * 32 + lane;
                if (c < H / 8) out[c] = bf16x8_pack(acc[u]);
            }
        }
        if (a.out_w != 0) {
            for (int k0 = 0; k0 < K; k0 += 32) {
                int k = k0 + lane;
                float s = 0.f;
                for (unsigned int dm = dests; dm; dm &= dm - 1) {
                    int l = __ffs(dm) - 1, d = WIDE ? __shfl_sync(MOE_FULL, my_pe, l) : l;
                    long long slot = __shfl_sync(MOE_FULL, my_slot, l);
                    const float *wp = (const float *) moe_at<NV>(a, d, a.off_recv_w) + slot * K + k;
                    if (k < K) s += NV ? nvshmem_float_g(wp, d) : __ldcg(wp);
                }
                if (k < K) ((float *) a.out_w)[(long long) t * K + k] = s;
            }
        }
    }
    MOE_PHASE; // 4: own tokens summed
    moe_trace_end(tr, 5);
    moe_last_block_publishes(a);
}
