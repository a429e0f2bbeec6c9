/*
 * Normal mode, dispatch: the grid barrier, the routing + count-exchange kernel (prep) and the data
 * kernel (also its cached-routing variant, which waits for every PE instead of exchanging counts).
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_trace.cuh"
#include "ucn_moe_rows.cuh"

// -------------------------------------------------------------------------------- normal mode

/*
 * Waits until every block of the grid has called it (all blocks are resident: the grid is within
 * this PE's share of the SMs). The counter is the slot's grid_done word (0 between operations); the
 * last block to arrive resets it and releases the others through the word after it, with the
 * operation's sequence number, so nothing needs clearing between operations.
 */
__device__ void moe_grid_sync(const ucn_moe_args &a, unsigned long long deadline) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned long long *release = (volatile unsigned long long *) ((char *) a.grid_done + 8);
        if (moe_last_block_arrives((unsigned int *) a.grid_done)) {
            moe_store_release_gpu(release, (unsigned long long) a.seq); // all blocks' writes, seen above
        } else {
            moe_spin s = moe_spin_begin(a, deadline, a.rank, 5);
            for (unsigned int spins = 1; *release != (unsigned long long) a.seq; spins++)
                if (moe_spin_ends(a, spins, s, moe_abort_word(a), (long long *) a.err, a.rank, 5, 0)) break;
            moe_fence_acquire_gpu(); // the volatile load above, made an acquire
        }
    }
    __syncthreads();
}

/*
 * Positions past 32 ranks (the prep kernel's WIDE case): per chunk of blockDim tokens and per group
 * of 32 ranks, each token's bits for the group (from its ids: a repeated expert sets the same bit),
 * a ballot per rank and one scan over the warps, as the narrow case does for all ranks at once.
 * pos[t][d] is -1 where token t does not go to rank d. wsum: [32 warps][32].
 */
__device__ void moe_wide_positions(const ucn_moe_args &a, int t0, int t1, int *base, int *tot, int *wsum) {
    int E = (int) a.experts, R = (int) a.nranks, K = (int) a.topk, L = (int) a.local_experts;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const long long *idx = (const long long *) a.topk_idx;
    int *pos = (int *) a.pos;
    for (int c0 = t0; c0 < t1; c0 += blockDim.x) {
        int t = c0 + threadIdx.x;
        for (int g0 = 0; g0 < R; g0 += 32) {
            unsigned int mask = 0;
            for (int k = 0; t < t1 && k < K; k++) {
                long long e = idx[(long long) t * K + k];
                if (e < 0 || e >= E) continue;
                int d = (int) (e / L) - g0;
                if (d >= 0 && d < 32 && moe_live(a, g0 + d)) mask |= 1u << d;
            }
            int G = min(32, R - g0);
            for (int d = 0; d < G; d++) {
                unsigned int b = __ballot_sync(MOE_FULL, (mask >> d) & 1);
                if (lane == 0) wsum[warp * 32 + d] = __popc(b);
            }
            __syncthreads();
            if (warp == 0) {
                for (int d = 0; d < G; d++) {
                    int v = lane < nwarps ? wsum[lane * 32 + d] : 0, incl = v;
                    for (int o = 1; o < 32; o <<= 1) {
                        int u = __shfl_up_sync(MOE_FULL, incl, o);
                        if (lane >= o) incl += u;
                    }
                    if (lane < nwarps) wsum[lane * 32 + d] = incl - v;
                    if (lane == 31) tot[g0 + d] = incl;
                }
            }
            __syncthreads();
            for (int d = 0; d < G; d++) {
                bool in = (mask >> d) & 1;
                unsigned int b = __ballot_sync(MOE_FULL, in);
                if (t < t1) pos[(long long) t * R + g0 + d] = in ? base[g0 + d] + wsum[warp * 32 + d] + __popc(b & ((1u << lane) - 1)) : -1;
            }
            __syncthreads();
            if (threadIdx.x < G) base[g0 + threadIdx.x] += tot[g0 + threadIdx.x];
            __syncthreads();
        }
    }
}

/*
 * Routing and the count exchange, a block per slice of the tokens. Each block finds its tokens'
 * destinations and per-expert counts and publishes its totals (part_counts[block][E | R]); after
 * a grid barrier each block numbers its tokens per destination after the earlier blocks' (ballot
 * scan, in token order: pos), and block 0 sends every PE this PE's row of the count matrix
 * [src][R tokens-per-rank | L tokens-per-local-expert], waits for the full matrix, then writes the
 * send offsets (device) and N + per-expert counts (info).
 * WIDE (more than 32 ranks): no 32-bit mask per token; each destination is counted at the token's
 * first expert on it (moe_rank_first), and positions are scanned per group of 32 ranks, the group's
 * bits rebuilt from the token's ids (shared memory: E + 2R + 32 x 32 ints, whatever the tokens).
 */
template <bool NV, bool WIDE>
__global__ void __launch_bounds__(1024) moe_normal_prep_kernel(ucn_moe_args a) {
    extern __shared__ int sh[];
    MOE_TRACE_BEGIN;
    int E = (int) a.experts, R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts;
    int me = (int) a.rank, lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    int per = (T + gridDim.x - 1) / gridDim.x, t0 = min(T, (int) blockIdx.x * per), t1 = min(T, t0 + per);
    int G = WIDE ? 32 : R; // ranks per position scan
    int *cnt_e = sh, *base = sh + E, *tot = base + R, *wsum = tot + R; // wsum: [32 warps][G]
    unsigned int *mask_of = (unsigned int *) (wsum + 32 * G); // narrow: [t1 - t0], bit d = token goes to rank d
    for (int i = threadIdx.x; i < E; i += blockDim.x) cnt_e[i] = 0;
    if (WIDE)
        for (int d = threadIdx.x; d < R; d += blockDim.x) base[d] = tot[d] = 0;
    else if (threadIdx.x < R)
        base[threadIdx.x] = tot[threadIdx.x] = 0;
    __syncthreads();
    const long long *idx = (const long long *) a.topk_idx;
    long long *err = (long long *) a.err;
    int *pos = (int *) a.pos, *part = (int *) a.part_counts;
    // A thread per token; up to 16 ids in registers, loaded together.
    for (int t = t0 + threadIdx.x; t < t1; t += blockDim.x) {
        unsigned int mask = 0;
        if (WIDE) {
            for (int k = 0; k < K; k++) {
                int e = moe_live_expert(a, idx, t, k, K, E, err, true);
                if (e < 0) continue;
                atomicAdd(&cnt_e[e], 1);
                int d = moe_live_rank_first(a, idx, t, k, K, E, L);
                if (d >= 0) atomicAdd(&tot[d], 1);
            }
            continue;
        }
        if (K <= 16) {
            long long r[16];
#pragma unroll
            for (int k = 0; k < 16; k++) r[k] = k < K ? idx[(long long) t * K + k] : -1;
#pragma unroll
            for (int k = 0; k < 16; k++) {
                long long e = r[k];
                if (k >= K || e == -1) continue;
                if (e < -1 || e >= E) {
                    moe_record(err, UCN_MOE_ERR_EXPERT, t, k, e);
                    continue;
                }
                bool repeat = false;
#pragma unroll
                for (int j = 0; j < 16; j++) repeat |= j < k && r[j] == e;
                if (repeat) {
                    moe_record(err, UCN_MOE_ERR_DUPLICATE, t, k, e);
                    continue;
                }
                if (!moe_live(a, (int) (e / L))) continue; // dropped: its rank is inactive
                atomicAdd(&cnt_e[e], 1);
                mask |= 1u << (e / L);
            }
        } else {
            for (int k = 0; k < K; k++) {
                int e = moe_live_expert(a, idx, t, k, K, E, err, true);
                if (e < 0) continue;
                atomicAdd(&cnt_e[e], 1);
                mask |= 1u << (e / L);
            }
        }
        mask_of[t - t0] = mask;
        for (int d = 0; d < R; d++)
            if ((mask >> d) & 1) atomicAdd(&tot[d], 1);
    }
    __syncthreads();
    int *mine = part + (long long) blockIdx.x * (E + R);
    for (int i = threadIdx.x; i < E + R; i += blockDim.x) mine[i] = i < E ? cnt_e[i] : tot[i - E];
    unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
    MOE_PHASE; // 1: own slice routed
    moe_grid_sync(a, deadline);
    MOE_PHASE; // 2: grid barrier
    // This block's first position per destination: the earlier blocks' tokens come first.
    if (WIDE) {
        for (int d = threadIdx.x; d < R; d += blockDim.x) {
            int b = 0;
            for (int j = 0; j < (int) blockIdx.x; j++) b += ((volatile int *) part)[(long long) j * (E + R) + E + d];
            base[d] = b;
        }
    } else if (threadIdx.x < R) {
        int b = 0;
        for (int j = 0; j < (int) blockIdx.x; j++) b += ((volatile int *) part)[(long long) j * (E + R) + E + threadIdx.x];
        base[threadIdx.x] = b;
    }
    __syncthreads();
    if (WIDE) moe_wide_positions(a, t0, t1, base, tot, wsum);
    // Positions: per chunk of blockDim tokens, a ballot per destination, one scan over the warps
    // for all destinations at once (two barriers per chunk, whatever R).
    for (int c0 = t0; !WIDE && c0 < t1; c0 += blockDim.x) {
        int t = c0 + threadIdx.x;
        unsigned int mask = t < t1 ? mask_of[t - t0] : 0;
        for (int d = 0; d < R; d++) {
            unsigned int b = __ballot_sync(MOE_FULL, (mask >> d) & 1);
            if (lane == 0) wsum[warp * R + d] = __popc(b);
        }
        __syncthreads();
        if (warp == 0) {
            for (int d = 0; d < R; d++) {
                int v = lane < nwarps ? wsum[lane * R + d] : 0, incl = v;
                for (int o = 1; o < 32; o <<= 1) {
                    int u = __shfl_up_sync(MOE_FULL, incl, o);
                    if (lane >= o) incl += u;
                }
                if (lane < nwarps) wsum[lane * R + d] = incl - v;
                if (lane == 31) tot[d] = incl;
            }
        }
        __syncthreads();
        for (int d = 0; d < R; d++) {
            bool in = (mask >> d) & 1;
            unsigned int b = __ballot_sync(MOE_FULL, in);
            if (t < t1) pos[(long long) t * R + d] = in ? base[d] + wsum[warp * R + d] + __popc(b & ((1u << lane) - 1)) : -1;
        }
        __syncthreads();
        if (threadIdx.x < R) base[threadIdx.x] += tot[threadIdx.x];
        __syncthreads();
    }
    MOE_PHASE; // 3: positions written
    if (blockIdx.x != 0) {
        moe_trace_end(tr, 3);
        return;
    }
    // Block 0: this PE's totals (all blocks' parts), sent to every PE as its row of the count matrix.
    for (int i = threadIdx.x; i < E + R; i += blockDim.x) {
        int n = 0;
        for (int j = 0; j < (int) gridDim.x; j++) n += ((volatile int *) part)[(long long) j * (E + R) + i];
        if (i < E) cnt_e[i] = n;
        else base[i - E] = n;
    }
    __syncthreads();
    const long long *peers = (const long long *) a.peers;
    int row = R + L, p = (int) (a.gen & 1);
    unsigned long long tag = (unsigned long long) (unsigned int) a.gen << 32;
    for (int i = threadIdx.x; i < R * row; i += blockDim.x) {
        int d = i / row, j = i % row;
        if (!moe_live(a, d)) continue; // an inactive PE gets nothing
        unsigned int v = j < R ? base[j] : cnt_e[d * L + j - R];
        moe_put_word<NV>(a, d, a.off_cnt + (((long long) p * R + me) * row + j) * 8, tag | v);
    }
    const unsigned long long *m = (const unsigned long long *) (peers[me] + a.off_cnt) + (long long) p * R * row;
    MOE_PHASE; // 4: counts sent
    __syncthreads();
    for (int i = threadIdx.x; i < R * row; i += blockDim.x)
        if (moe_live(a, i / row)) moe_wait_tag(a, m + i, (unsigned int) a.gen, deadline, moe_abort_word(a), err, i / row);
    __syncthreads();
    MOE_PHASE; // 5: count matrix complete
    moe_trace_end(tr, 3);
    int *info = (int *) a.info;
    if (WIDE) {
        for (int d = threadIdx.x; d < R; d += blockDim.x) {
            int s_off = 0;
            for (int s = 0; s < me; s++)
                if (moe_live(a, s)) s_off += (int) (unsigned int) m[(long long) s * row + d]; // inactive: stale words
            ((int *) a.send_off)[d] = s_off;
        }
    } else if (threadIdx.x < R) {
        int s_off = 0;
        for (int s = 0; s < me; s++)
            if (moe_live(a, s)) s_off += (int) (unsigned int) m[s * row + threadIdx.x];
        ((int *) a.send_off)[threadIdx.x] = s_off;
    }
    if (threadIdx.x == 0) {
        int n = 0;
        for (int s = 0; s < R; s++)
            if (moe_live(a, s)) n += (int) (unsigned int) m[s * row + me];
        info[0] = n;
    }
    for (int le = threadIdx.x; le < L; le += blockDim.x) {
        int n = 0;
        for (int s = 0; s < R; s++)
            if (moe_live(a, s)) n += (int) (unsigned int) m[s * row + R + le];
        info[1 + le] = n;
    }
}

/*
 * Grid: a warp per token writes the token's row (and fp8 scales, local expert ids, weights) into
 * each destination's receive area at its slot. Then every block signals every PE, and block 0
 * waits until all PEs' blocks have signalled this PE (a.expected in total per source).
 * CACHED (routing from an earlier dispatch, no count exchange): first every PE must have entered
 * this operation, so that no PE writes into a receive area its owner still reads: block 0 stamps
 * word 0 of this PE's row of the count matrix on every PE with the generation, every block waits
 * for all PEs' stamps (in the kernel: no barrier kernel and launch before it).
 */
template <bool NV, bool CACHED, bool WIDE>
__global__ void __launch_bounds__(512) moe_normal_dispatch_kernel(ucn_moe_args a) {
    MOE_TRACE_BEGIN;
    int R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts, E = (int) a.experts;
    int lane = threadIdx.x & 31;
    long long H = a.hidden, row_bytes = a.fp8 ? H : 2 * H, scale_bytes = (H / 128) * 4;
    const long long *peers = (const long long *) a.peers;
    if (CACHED) {
        long long row = R + L, p = a.gen & 1;
        unsigned long long tag = (unsigned long long) (unsigned int) a.gen << 32;
        if (WIDE && blockIdx.x == 0) {
            for (int d = threadIdx.x; d < R; d += blockDim.x)
                if (moe_live(a, d)) moe_put_word<NV>(a, d, a.off_cnt + ((p * R + a.rank) * row) * 8, tag);
        } else if (blockIdx.x == 0 && threadIdx.x < R && moe_live(a, threadIdx.x)) {
            moe_put_word<NV>(a, threadIdx.x, a.off_cnt + ((p * R + a.rank) * row) * 8, tag);
        }
        const unsigned long long *m = (const unsigned long long *) (peers[a.rank] + a.off_cnt) + p * R * row;
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        if (WIDE) {
            for (int d = threadIdx.x; d < R; d += blockDim.x)
                if (moe_live(a, d)) moe_wait_tag(a, m + d * row, (unsigned int) a.gen, deadline, moe_abort_word(a), (long long *) a.err, d);
        } else if (threadIdx.x < R && moe_live(a, threadIdx.x)) {
            moe_wait_tag(a, m + threadIdx.x * row, (unsigned int) a.gen, deadline, moe_abort_word(a), (long long *) a.err, threadIdx.x);
        }
        __syncthreads();
        MOE_PHASE; // 1: every PE entered
    }
    const int *pos = (const int *) a.pos, *send_off = (const int *) a.send_off;
    const long long *idx = (const long long *) a.topk_idx;
    const float *w = (const float *) a.topk_w;
    int warps = gridDim.x * (blockDim.x >> 5);
    // Drops under the mask as it is now (after the routing kernel's waits, which may have found a peer gone).
    if (!CACHED) moe_count_drops(a, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x, T);
    for (int t = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); t < T; t += warps) {
        int my_pe; // lane l's rank: l itself up to 32 ranks (moe_token_dests)
        int my_slot = moe_token_dests<WIDE>(pos, send_off, R, t, lane, &my_pe);
        if (my_slot >= 0 && !moe_live(a, my_pe)) my_slot = -1; // routed before a peer was found gone: not sent
        unsigned int dests = __ballot_sync(MOE_FULL, my_slot >= 0);
        const char *src = (const char *) a.x + t * row_bytes;
        // Lane d: where the row goes on PE d. The row is read once and stored to every destination.
        long long dst = my_slot >= 0 && !NV ? peers[my_pe] + a.off_recv + my_slot * row_bytes : 0;
        const int4 *s4 = (const int4 *) src;
        long long m = NV ? 0 : row_bytes >> 4;
        for (unsigned int dm = NV ? dests : 0; dm; dm &= dm - 1) {
            int l = __ffs(dm) - 1, d = WIDE ? __shfl_sync(MOE_FULL, my_pe, l) : l;
            moe_put_rows<NV>(a, d, a.off_recv + (long long) __shfl_sync(MOE_FULL, my_slot, l) * row_bytes, src, row_bytes, lane);
        }
        for (long long i0 = 0; i0 < m; i0 += 64) { // warp-uniform, so every shuffle has all lanes
            long long i = i0 + lane;
            int4 v0 = i < m ? __ldg(s4 + i) : make_int4(0, 0, 0, 0), v1 = i + 32 < m ? __ldg(s4 + i + 32) : make_int4(0, 0, 0, 0);
            for (unsigned int dm = dests; dm; dm &= dm - 1) {
                int4 *to = (int4 *) __shfl_sync(MOE_FULL, dst, __ffs(dm) - 1);
                if (i < m) to[i] = v0;
                if (i + 32 < m) to[i + 32] = v1;
            }
        }
        for (unsigned int dm = dests; dm; dm &= dm - 1) {
            int l = __ffs(dm) - 1, d = WIDE ? __shfl_sync(MOE_FULL, my_pe, l) : l;
            long long slot = __shfl_sync(MOE_FULL, my_slot, l);
            if (a.fp8)
                moe_put_rows<NV>(a, d, a.off_recv_scales + slot * scale_bytes, (const char *) a.x_scales + t * scale_bytes, scale_bytes, lane);
            if (idx != 0) {
                for (int k = lane; k < K; k += 32) {
                    int e = moe_live_expert(a, idx, t, k, K, E, (long long *) a.err, false);
                    long long local = (e >= 0 && e / L == d) ? e - (long long) d * L : -1;
                    float wk = w != 0 && local >= 0 ? w[(long long) t * K + k] : 0.f;
                    long long *ip = (long long *) moe_at<NV>(a, d, a.off_recv_idx) + slot * K + k;
                    float *wp = (float *) moe_at<NV>(a, d, a.off_recv_w) + slot * K + k;
                    if (NV) {
                        nvshmem_longlong_p(ip, local, d);
                        if (w != 0) nvshmem_float_p(wp, wk, d);
                    } else {
                        *ip = local;
                        if (w != 0) *wp = wk;
                    }
                }
            }
        }
    }
    MOE_PHASE; // 1: rows written
    moe_signal_all<NV>(a, a.off_done, a.rank);
    MOE_PHASE; // 2: signalled
    if (blockIdx.x != 0) {
        moe_trace_end(tr, 4);
        return;
    }
    if (WIDE) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        for (int d = threadIdx.x; d < R; d += blockDim.x)
            if (moe_live(a, d))
                moe_wait_ge(a, (const unsigned long long *) (peers[a.rank] + a.off_done) + d, (unsigned long long) a.expected,
                            deadline, moe_abort_word(a), (long long *) a.err, d, 1);
    } else if (threadIdx.x < R && moe_live(a, threadIdx.x)) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        moe_wait_ge(a, (const unsigned long long *) (peers[a.rank] + a.off_done) + threadIdx.x, (unsigned long long) a.expected,
                    deadline, moe_abort_word(a), (long long *) a.err, threadIdx.x, 1);
    }
    __syncthreads();
    MOE_PHASE; // 3: every PE's rows arrived
    moe_trace_end(tr, 4);
    if (threadIdx.x == 0) moe_publish(a); // every PE's rows for this PE have arrived
}
