/*
 * Low-latency mode, the dispatch's row packing: FP8 quantisation on the way, the (token, expert)
 * slot numbering, and the two ways rows reach the experts' PEs (512-channel pieces with loads and
 * stores, whole rows per slot with NVSHMEM).
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_rows.cuh"

// --------------------------------------------------------------------------- low-latency mode

/*
 * Sixteen channels (one lane's two int4 of bf16) to e4m3, the eight lanes of a 128-channel block
 * sharing one scale: amax = max(|x|, 1e-4), q = x * 448 / amax, scale = amax / 448 (the kit's
 * quantiser). Every lane of the warp must call it (the amax is reduced by shuffles); dead lanes
 * (a whole block of them) pass live false.
 */
__device__ __forceinline__ int4 moe_fp8_quantise16(int4 lo, int4 hi, bool live, float *scale) {
    float v[16];
    float amax = 0.f;
    const __nv_bfloat162 *l2 = (const __nv_bfloat162 *) &lo, *h2 = (const __nv_bfloat162 *) &hi;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float2 f = __bfloat1622float2(l2[i]), g = __bfloat1622float2(h2[i]);
        v[2 * i] = live ? f.x : 0.f;
        v[2 * i + 1] = live ? f.y : 0.f;
        v[8 + 2 * i] = live ? g.x : 0.f;
        v[8 + 2 * i + 1] = live ? g.y : 0.f;
    }
#pragma unroll
    for (int i = 0; i < 16; i++) amax = fmaxf(amax, fabsf(v[i]));
    for (int o = 4; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(MOE_FULL, amax, o));
    amax = fmaxf(amax, 1e-4f);
    float mul = 448.f / amax;
    *scale = amax / 448.f;
    int4 q;
    unsigned char *qb = (unsigned char *) &q;
#pragma unroll
    for (int i = 0; i < 16; i++) qb[i] = (unsigned char) __nv_cvt_float_to_fp8(v[i] * mul, __NV_SATFINITE, __NV_E4M3);
    return q;
}

/*
 * One lane's 16 channels from channel ch of a bf16 row (two 16-byte loads; none past hidden H, a
 * multiple of 128, so a lane's channels are all in or all out), quantised: see moe_fp8_quantise16.
 */
__device__ __forceinline__ int4 moe_fp8_piece(const char *row, long long ch, long long H, float *scale) {
    bool live = ch < H;
    const int4 *src = (const int4 *) row + ch / 8;
    int4 lo = live ? __ldg(src) : make_int4(0, 0, 0, 0), hi = live ? __ldg(src + 1) : make_int4(0, 0, 0, 0);
    return moe_fp8_quantise16(lo, hi, live, scale);
}

/*
 * The row map of the push combine (load/store transport): word [parity][src][t][k] on the PE that
 * holds expert slot k of source src's token t is tag | (row + 1); on every other PE tag | 0. The
 * tag (the dispatch's generation) tells this dispatch's entries from older ones.
 */
__device__ __forceinline__ void moe_map_put(const ucn_moe_args &a, int d, int p, int t, int k, unsigned long long v) {
    long long at = (((long long) p * a.nranks + a.rank) * a.max_tokens + t) * a.topk + k;
    char *map = (char *) ((const long long *) a.peers)[d] + a.off_recv_idx;
    ((volatile unsigned long long *) map)[at] = v;
}

/*
 * Slot of expert e for my token t on e's PE: the tokens of lower source ranks (count matrix m),
 * then my tokens before t that chose e (bitmap).
 */
__device__ __forceinline__ int moe_ll_slot(const ucn_moe_args &a, const unsigned int *bits, const unsigned long long *m, int W, int E, int me,
                                           int e, int t) {
    int slot = 0;
    bool all = !moe_any_inactive(a); // one load on the common path, not one per source
    for (int s = 0; s < me; s++)
        if (all || moe_live(a, s)) slot += (int) (unsigned int) m[(long long) s * E + e]; // an inactive source's words are stale
    for (int j = 0; j < t / 32; j++) slot += __popc(bits[e * W + j]);
    return slot + __popc(bits[e * W + t / 32] & ((1u << (t % 32)) - 1));
}

/*
 * Piece `work` (token work / pieces, 512 channels from (work % pieces) * 512) of the low-latency FP8
 * dispatch, this lane's 16 channels quantised (moe_fp8_piece; the whole warp calls it).
 */
__device__ __forceinline__ int4 moe_ll_piece(const ucn_moe_args &a, long long work, long long pieces, float *scale) {
    long long H = a.hidden, ch = (work % pieces) * 512 + (threadIdx.x & 31) * 16;
    return moe_fp8_piece((const char *) a.x + (work / pieces) * 2 * H, ch, H, scale);
}

/*
 * This warp's first piece in moe_ll_store_pieces, read and quantised before the count matrix is
 * complete: only the stores need the slots, so the exchange's round trip overlaps this.
 */
__device__ __forceinline__ int4 moe_ll_first_piece(const ucn_moe_args &a, float *scale) {
    long long pieces = (a.hidden + 511) / 512;
    long long work = (long long) (threadIdx.x >> 5) * gridDim.x + blockIdx.x; // warp-uniform
    *scale = 0.f;
    return work < (long long) a.tokens * pieces ? moe_ll_piece(a, work, pieces, scale) : make_int4(0, 0, 0, 0);
}

/*
 * Low-latency FP8 dispatch rows, load/store transport. A warp per (token, 512 channels), the pieces
 * dealt round-robin over the blocks so every SM issues stores: the warp reads its piece once (a
 * lane: 16 channels, two 16-byte loads), quantises it once (eight lanes per 128-channel block share
 * a scale), then stores it into each of the token's expert slots (lane k knows slot k's PE and row):
 * K stores per lane and no further loads, where a warp per (token, expert) read and quantised every
 * token K times (a third less kernel time on one H200). BF16 rows, which need no conversion, keep a
 * warp per (token, expert): measured faster there. Piece 0's warp also writes the route and the push
 * combine's row map.
 */
template <bool WIDE>
__device__ void moe_ll_store_pieces(const ucn_moe_args &a, const unsigned int *bits, const unsigned long long *m, int W, int p,
                                    unsigned long long tag, int2 *route, int4 first_q, float first_scale) {
    int E = (int) a.experts, R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts;
    int me = (int) a.rank, lane = threadIdx.x & 31;
    long long H = a.hidden, slots = (long long) R * a.max_tokens;
    long long region = a.off_recv + p * a.region, scales = region + (long long) L * slots * H, pieces = (H + 511) / 512;
    const long long *idx = (const long long *) a.topk_idx;
    long long *err = (long long *) a.err;
    long long warps = (long long) gridDim.x * (blockDim.x >> 5);
    bool first = true; // warp-uniform: the first piece was quantised before the count matrix arrived
    for (long long work = (long long) (threadIdx.x >> 5) * gridDim.x + blockIdx.x; work < (long long) T * pieces; work += warps) {
        int t = (int) (work / pieces);
        long long g = work % pieces;
        int e = -1, d = 0;
        long long row = -1; // lane k < K: expert slot k's row on PE d, -1 for none
        if (lane < K) {
            e = moe_live_expert(a, idx, t, lane, K, E, err, false);
            if (e >= 0) {
                d = e / L;
                row = (long long) (e % L) * slots + moe_ll_slot(a, bits, m, W, E, me, e, t);
            }
        }
        if (g == 0) {
            if (lane < K) route[(long long) t * K + lane] = e >= 0 ? make_int2(e, (int) (row - (long long) (e % L) * slots)) : make_int2(-1, -1);
            for (int k = 0; k < K; k++) {
                int dk = __shfl_sync(MOE_FULL, d, k);
                long long rk = __shfl_sync(MOE_FULL, row, k);
                if (WIDE) {
                    for (int pe = lane; pe < R; pe += 32)
                        if (moe_live(a, pe)) moe_map_put(a, pe, p, t, k, tag | (rk >= 0 && pe == dk ? (unsigned long long) rk + 1 : 0ULL));
                } else if (lane < R && moe_live(a, lane)) {
                    moe_map_put(a, lane, p, t, k, tag | (rk >= 0 && lane == dk ? (unsigned long long) rk + 1 : 0ULL));
                }
            }
        }
        long long ch = g * 512 + lane * 16;
        float scale = first_scale;
        int4 q = first ? first_q : moe_ll_piece(a, work, pieces, &scale);
        first = false;
        for (int k = 0; k < K; k++) {
            int dk = __shfl_sync(MOE_FULL, d, k);
            long long rk = __shfl_sync(MOE_FULL, row, k);
            if (rk < 0 || ch >= H) continue;
            *(int4 *) (moe_at<false>(a, dk, region + rk * H) + ch) = q;
            if (lane % 8 == 0) ((float *) moe_at<false>(a, dk, scales + rk * (H / 128) * 4))[ch / 128] = scale;
        }
    }
}

/*
 * Low-latency dispatch rows, a warp per (token, expert slot): BF16 rows as they are (load/store: with
 * few tokens `split` warps share a row, so every warp has work), and FP8 on the NVSHMEM transport,
 * staged (quantised with its scales) in the warp's scratch and put. Load/store FP8 goes through
 * moe_ll_store_pieces instead. Writes the route and (load/store) the push combine's row map.
 */
template <bool NV, bool WIDE>
__device__ void moe_ll_rows_per_slot(const ucn_moe_args &a, const unsigned int *bits, const unsigned long long *m, int W, int p,
                                     unsigned long long tag, int2 *route) {
    int E = (int) a.experts, R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts;
    int me = (int) a.rank, lane = threadIdx.x & 31;
    long long H = a.hidden, slots = (long long) R * a.max_tokens, stride = a.fp8 ? H : 2 * H, scale_cols = H / 128;
    long long region = a.off_recv + p * a.region, scales = region + (long long) L * slots * H; // FP8: all scales after all codes
    const long long *idx = (const long long *) a.topk_idx;
    long long *err = (long long *) a.err;
    int warps = gridDim.x * (blockDim.x >> 5), split = 1;
    if (!NV && T * K > 0) split = max(1, min(warps / (T * K), (int) ((H + 255) / 256)));
    for (int work = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); work < T * K * split; work += warps) {
        int item = work / split, part = work % split;
        int t = item / K, k = item % K;
        int e = moe_live_expert(a, idx, t, k, K, E, err, false);
        if (e < 0) {
            if (lane == 0 && part == 0) route[item] = make_int2(-1, -1);
            if (!NV && WIDE && part == 0) {
                for (int pe = lane; pe < R; pe += 32)
                    if (moe_live(a, pe)) moe_map_put(a, pe, p, t, k, tag);
            } else if (!NV && part == 0 && lane < R && moe_live(a, lane)) {
                moe_map_put(a, lane, p, t, k, tag);
            }
            continue;
        }
        int d = e / L, slot = moe_ll_slot(a, bits, m, W, E, me, e, t);
        if (lane == 0 && part == 0) route[item] = make_int2(e, slot);
        long long row = (long long) (e % L) * slots + slot;
        if (!NV && WIDE && part == 0) {
            for (int pe = lane; pe < R; pe += 32)
                if (moe_live(a, pe)) moe_map_put(a, pe, p, t, k, tag | (pe == d ? (unsigned long long) row + 1 : 0ULL));
        } else if (!NV && part == 0 && lane < R && moe_live(a, lane)) {
            moe_map_put(a, lane, p, t, k, tag | (lane == d ? (unsigned long long) row + 1 : 0ULL));
        }
        const char *src = (const char *) a.x + (long long) t * 2 * H;
        long long data_off = region + row * stride;
        if (!a.fp8) {
            // This warp's contiguous share of the row, whole 16-byte vectors (rows are 16-byte multiples).
            long long share = ((2 * H + split - 1) / split + 15) & ~15LL, from = part * share;
            if (from < 2 * H) moe_put_rows<NV>(a, d, data_off + from, src + from, min(share, 2 * H - from), lane);
            continue;
        }
        char *dst = moe_scratch(a);
        float *sdst = (float *) (dst + H);
        for (long long ch = lane * 16; ch - lane * 16 < H; ch += 512) { // the whole warp per 512 channels (shuffles)
            float scale;
            int4 q = moe_fp8_piece(src, ch, H, &scale);
            if (ch < H) *(int4 *) (dst + ch) = q;
            if (ch < H && lane % 8 == 0) sdst[ch / 128] = scale;
        }
        __syncwarp();
        moe_put_rows<NV>(a, d, data_off, dst, H, lane);
        moe_put_rows<NV>(a, d, scales + row * scale_cols * 4, (const char *) sdst, scale_cols * 4, lane);
    }
}
