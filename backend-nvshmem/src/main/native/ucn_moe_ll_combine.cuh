/*
 * Low-latency mode, combine: owners pull (NVSHMEM transport) or the experts' PEs push summed rows
 * (load/store transport).
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_trace.cuh"
#include "ucn_moe_rows.cuh"

/*
 * The NVSHMEM transport's low-latency combine (loads/stores use moe_ll_combine_push_kernel).
 * Grid: stages y's valid rows into this PE's receive area of the dispatch's parity (unless y is
 * already there), signals every PE, waits for all, then a warp per own token pulls the token's
 * expert outputs from the experts' PEs and sums them weighted (fp32, bf16 once).
 */
template <bool NV, bool WIDE, bool MASKED>
__global__ void __launch_bounds__(1024) moe_ll_combine_kernel(ucn_moe_args args) {
    const ucn_moe_args a = moe_view<MASKED>(args);
    int R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts, me = (int) a.rank;
    moe_seq q = moe_sequence(a, 2);
    int maxT = (int) a.max_tokens, lane = threadIdx.x & 31, p = q.p;
    long long H = a.hidden, slots = (long long) R * maxT, row_bytes = 2 * H;
    const long long *peers = (const long long *) a.peers;
    char *own = (char *) peers[me] + a.off_recv + p * a.region;
    int warps = gridDim.x * (blockDim.x >> 5), gw = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (a.y != 0) {
        const int *count = (const int *) a.recv_count + p * L;
        for (int le = 0; le < L; le++)
            for (long long r = gw; r < count[le]; r += warps) {
                long long row = le * slots + r;
                moe_warp_copy(own + row * row_bytes, (const char *) a.y + row * row_bytes, row_bytes, lane);
            }
    }
    moe_signal_all<NV>(a, a.off_ready, (long long) p * R + me);
    if (WIDE) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        for (int d = threadIdx.x; d < R; d += blockDim.x)
            if (moe_live(a, d))
                moe_wait_ge(a, (const unsigned long long *) ((char *) peers[me] + a.off_ready) + (long long) p * R + d,
                            q.expected, deadline, moe_abort_word(a), (long long *) a.err, d, 4);
    } else if (threadIdx.x < R && moe_live(a, threadIdx.x)) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        moe_wait_ge(a, (const unsigned long long *) ((char *) peers[me] + a.off_ready) + (long long) p * R + threadIdx.x,
                    q.expected, deadline, moe_abort_word(a), (long long *) a.err, threadIdx.x, 4);
    }
    __syncthreads();
    // Warp-uniform (lane 0's view), so no warp splits around its shuffles.
    bool ok = __shfl_sync(MOE_FULL, (int) moe_ok(a), 0);
    const int2 *route = (const int2 *) a.route + (long long) p * maxT * K;
    const float *w = (const float *) a.topk_w;
    // A warp per (token, 256 channels): few tokens still spread over the whole grid.
    long long chunks = (H / 8 + 31) / 32;
    for (long long item = gw; ok && item < (long long) T * chunks; item += warps) {
        int t = (int) (item / chunks);
        long long first = (item % chunks) * 512, c = (item % chunks) * 32 + lane, n = min(512LL, row_bytes - first);
        long long src = -1; // lane k: symmetric offset of expert slot k's row on PE pe, -1 for none
        int pe = 0;
        float wk = 0.f;
        if (lane < K) {
            int2 r = route[(long long) t * K + lane];
            if (r.x >= 0 && moe_live(a, r.x / L)) { // an expert of a PE found gone since the dispatch: not summed
                pe = r.x / L;
                src = a.off_recv + p * a.region + ((long long) (r.x % L) * slots + r.y) * row_bytes + first;
                wk = w[(long long) t * K + lane];
            }
        }
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        // The first eight experts' rows are loaded together (one round trip), the rest one by one.
        int4 v[8];
        float wt[8];
#pragma unroll
        for (int k = 0; k < 8; k++) {
            long long from = __shfl_sync(MOE_FULL, src, k);
            int at = __shfl_sync(MOE_FULL, pe, k);
            wt[k] = __shfl_sync(MOE_FULL, wk, k);
            v[k] = make_int4(0, 0, 0, 0);
            if (from >= 0 && k < K) {
                const int4 *part = moe_pull_512<NV>(a, at, from, n, k);
                if (c < H / 8) v[k] = __ldcg(part + lane);
            }
        }
#pragma unroll
        for (int k = 0; k < 8; k++) bf16x8_add(acc, v[k], wt[k]);
        for (int k = 8; k < K; k++) {
            long long from = __shfl_sync(MOE_FULL, src, k);
            int at = __shfl_sync(MOE_FULL, pe, k);
            float w8 = __shfl_sync(MOE_FULL, wk, k);
            if (from >= 0) {
                const int4 *part = moe_pull_512<NV>(a, at, from, n, k);
                if (c < H / 8) bf16x8_add(acc, __ldcg(part + lane), w8);
            }
        }
        if (c < H / 8) ((int4 *) ((char *) a.out + ((long long) p * maxT + t) * row_bytes))[c] = bf16x8_pack(acc);
    }
    if (moe_last_block_publishes(a) && a.ctl != 0) {
        volatile unsigned long long *ctl = (volatile unsigned long long *) a.ctl;
        ctl[2] = ctl[2] + 1; // every block has passed its wait
    }
}

/*
 * Low-latency combine, load/store transport: the experts' PEs push, instead of the owners pulling.
 * Each PE holding experts of a token sums them there and stores one row per (token, PE) into the
 * owner's combine area, so a token crosses NVLink once per remote PE rather than once per expert:
 *   A. owners store their weights w[t][k], tagged with the generation, beside the expert slot's row
 *      map (written by the dispatch) on the expert's PE; no barrier: a reader waits for the tag;
 *   B. a warp per (source, token, 256 channels) reads the token's rows on this PE: one row is passed
 *      on as it is (bf16, the owner weighs it), several are summed weighted in fp32 (waiting for
 *      their weights) and passed on in fp32 (no second bf16 rounding: the kit wants one bf16 ulp);
 *      then every PE is signalled;
 *   C. once every PE's rows are there, a warp per (own token, 256 channels) sums them: all loads local.
 * Row maps, weights and the combine area have two generations, like the receive area: a PE pushing
 * for combine g+2 has passed dispatch g+2, which the owner starts only after its combine g.
 */
template <bool WIDE, bool MASKED>
__global__ void __launch_bounds__(1024) moe_ll_combine_push_kernel(ucn_moe_args args) {
    const ucn_moe_args a = moe_view<MASKED>(args);
    MOE_TRACE_BEGIN;
    int R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts, me = (int) a.rank;
    moe_seq q = moe_sequence(a, 2);
    int maxT = (int) a.max_tokens, lane = threadIdx.x & 31, p = q.p;
    long long H = a.hidden, row_bytes = 2 * H, slot_bytes = 4 * H, chunks = (H / 8 + 31) / 32;
    const long long *peers = (const long long *) a.peers;
    char *own = (char *) peers[me];
    long long *err = (long long *) a.err;
    int warps = gridDim.x * (blockDim.x >> 5), gw = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int2 *route = (const int2 *) a.route + (long long) p * maxT * K;
    const float *w = (const float *) a.topk_w;
    long long gen_words = (long long) R * maxT * K; // row map and weight words per generation
    unsigned int tag = (unsigned int) q.gen;
    unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
    // A: weights next to the row maps, [gen][src][t][k] on the expert slot's PE.
    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < (long long) T * K; i += (long long) gridDim.x * blockDim.x) {
        int2 r = route[i];
        if (r.x < 0 || !moe_live(a, r.x / L)) continue;
        unsigned long long *to = (unsigned long long *) ((char *) peers[r.x / L] + a.off_recv_w);
        ((volatile unsigned long long *) to)[p * gen_words + (long long) me * maxT * K + i] =
            (unsigned long long) tag << 32 | (unsigned int) __float_as_uint(w[i]);
    }
    MOE_PHASE; // 1: weights written
    // B: this PE's share of every source's tokens.
    const char *y = a.y != 0 ? (const char *) a.y : own + a.off_recv + p * a.region;
    const unsigned long long *map = (const unsigned long long *) (own + a.off_recv_idx) + p * gen_words;
    const unsigned long long *wt = (const unsigned long long *) (own + a.off_recv_w) + p * gen_words;
    bool ok = true;
    for (long long item = gw; ok && item < (long long) R * maxT * chunks; item += warps) {
        long long st = item / chunks, c = (item % chunks) * 32 + lane;
        int s = (int) (st / maxT);
        if (!moe_live(a, s)) continue; // warp-uniform: an inactive source's map entries are stale
        // The row map entry and the weight word are loaded together (one round trip, not two); a weight
        // not yet tagged with this generation is waited for below.
        unsigned long long ent = 0, wword = 0;
        if (lane < K) {
            ent = map[st * K + lane];
            wword = ((const volatile unsigned long long *) wt)[st * K + lane];
        }
        long long row = (unsigned int) (ent >> 32) == tag ? (long long) (unsigned int) ent - 1 : -1;
        unsigned int rows = __ballot_sync(MOE_FULL, row >= 0);
        if (rows == 0) continue;
        char *to = (char *) peers[s] + a.off_comb + (((long long) p * R + me) * maxT + st % maxT) * slot_bytes;
        if (__popc(rows) == 1) {
            long long r = __shfl_sync(MOE_FULL, row, __ffs(rows) - 1);
            if (c < H / 8) ((int4 *) to)[c] = __ldcg((const int4 *) (y + r * row_bytes) + c);
            continue;
        }
        float wk = 0.f;
        if (row >= 0) {
            int v = (unsigned int) (wword >> 32) == tag ? (int) (unsigned int) wword
                                                          : moe_wait_tag(a, wt + st * K + lane, tag, deadline, moe_abort_word(a), err, s);
            wk = __uint_as_float((unsigned int) v);
        }
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        // Eight rows' loads in flight at once, then the rest.
        int4 v[8];
        float wv[8];
        unsigned int left = rows; // warp-uniform
#pragma unroll
        for (int j = 0; j < 8; j++) {
            v[j] = make_int4(0, 0, 0, 0);
            wv[j] = 0.f;
            if (left != 0) {
                int k = __ffs(left) - 1;
                left &= left - 1;
                long long r = __shfl_sync(MOE_FULL, row, k);
                wv[j] = __shfl_sync(MOE_FULL, wk, k);
                if (c < H / 8) v[j] = __ldcg((const int4 *) (y + r * row_bytes) + c);
            }
        }
#pragma unroll
        for (int j = 0; j < 8; j++) bf16x8_add(acc, v[j], wv[j]);
        for (; left != 0; left &= left - 1) {
            int k = __ffs(left) - 1;
            long long r = __shfl_sync(MOE_FULL, row, k);
            float wj = __shfl_sync(MOE_FULL, wk, k);
            if (c < H / 8) bf16x8_add(acc, __ldcg((const int4 *) (y + r * row_bytes) + c), wj);
        }
        if (c < H / 8) {
            float4 *f = (float4 *) to + 2 * c;
            f[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
            f[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
        }
        ok = __all_sync(MOE_FULL, moe_ok(a)); // after the stores: off the loads' path
    }
    MOE_PHASE; // 2: sums pushed
    moe_signal_all<false>(a, a.off_ready, (long long) p * R + me);
    MOE_PHASE; // 3: signalled
    const unsigned long long *ready = (const unsigned long long *) (own + a.off_ready) + (long long) p * R;
    // Elastic: half a timeout past phase B's deadline, the same for every block. A dead source's weights may take B's
    // whole timeout and grace, and the survivors, who wait for the same weights, signal only after that; a deadline
    // near B's (even one taken after this block's own B, if the block did not wait there) lets this wait's grace end
    // with theirs, before their loss record, and it would mark them gone (seen on one H100 with 3 PEs time-sliced,
    // where a PE off the GPU finds both graces over at once). A peer truly gone is still found within twice the
    // timeout. Not elastic: B's deadline, so a combine that failed in B does not spin longer.
    if (a.elastic) deadline += (unsigned long long) a.timeout_ns / 2;
    if (WIDE) {
        for (int d = threadIdx.x; d < R; d += blockDim.x)
            if (moe_live(a, d)) moe_wait_ge(a, ready + d, q.expected, deadline, moe_abort_word(a), err, d, 4);
    } else if (threadIdx.x < R && moe_live(a, threadIdx.x)) {
        moe_wait_ge(a, ready + threadIdx.x, q.expected, deadline, moe_abort_word(a), err, threadIdx.x, 4);
    }
    __syncthreads();
    MOE_PHASE; // 4: every PE's sums arrived
    ok = __shfl_sync(MOE_FULL, (int) moe_ok(a), 0);
    // C: every PE's share of each own token, summed.
    const char *comb = own + a.off_comb + (long long) p * R * maxT * slot_bytes;
    for (long long item = gw; ok && item < (long long) T * chunks; item += warps) {
        int t = (int) (item / chunks);
        long long c = (item % chunks) * 32 + lane;
        int pe = -1;
        float wk = 0.f;
        if (lane < K) {
            int2 r = route[(long long) t * K + lane];
            if (r.x >= 0 && moe_live(a, r.x / L)) {
                pe = r.x / L;
                wk = w[(long long) t * K + lane];
            }
        }
        // The token's PEs in ascending order: the bits of a mask up to 32 ranks; past 32 (WIDE) the smallest left each time.
        unsigned int pes = WIDE ? __ballot_sync(MOE_FULL, pe >= 0) : __reduce_or_sync(MOE_FULL, pe >= 0 ? 1u << pe : 0u);
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (unsigned int dm = pes; dm; dm = WIDE ? dm : dm & (dm - 1)) { // WIDE: dm holds the lanes still to sum
            int d = WIDE ? (int) __reduce_min_sync(MOE_FULL, (dm >> lane) & 1 ? (unsigned int) pe : 0xffffffffu) : __ffs(dm) - 1;
            unsigned int ks = __ballot_sync(MOE_FULL, pe == d);
            if (WIDE) dm &= ~ks;
            float wd = __shfl_sync(MOE_FULL, wk, __ffs(ks) - 1); // used when PE d holds one of the token's experts
            const char *from = comb + ((long long) d * maxT + t) * slot_bytes;
            if (c >= H / 8) continue;
            if (__popc(ks) == 1) {
                bf16x8_add(acc, __ldcg((const int4 *) from + c), wd);
            } else {
                float4 f0 = __ldcg((const float4 *) from + 2 * c), f1 = __ldcg((const float4 *) from + 2 * c + 1);
                acc[0] += f0.x; acc[1] += f0.y; acc[2] += f0.z; acc[3] += f0.w;
                acc[4] += f1.x; acc[5] += f1.y; acc[6] += f1.z; acc[7] += f1.w;
            }
        }
        if (c < H / 8) ((int4 *) ((char *) a.out + ((long long) p * maxT + t) * row_bytes))[c] = bf16x8_pack(acc);
    }
    MOE_PHASE; // 5: own tokens summed
    moe_trace_end(tr, 2);
    if (moe_last_block_publishes(a) && a.ctl != 0) {
        volatile unsigned long long *ctl = (volatile unsigned long long *) a.ctl;
        ctl[2] = ctl[2] + 1; // every block has passed its wait
    }
}
