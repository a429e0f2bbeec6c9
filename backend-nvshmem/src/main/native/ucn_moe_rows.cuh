/*
 * Moving and summing token rows: warp copies, row puts and pulls on either transport, checked expert
 * ids, and bf16x8 accumulation.
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_signal.cuh"

/* One warp copies n bytes; 16-byte vectors when both ends and n allow, else words or bytes. */
__device__ __forceinline__ void moe_warp_copy(char *dst, const char *src, long long n, int lane) {
    if ((((uintptr_t) dst | (uintptr_t) src | (uintptr_t) n) & 15) == 0) {
        const int4 *s = (const int4 *) src;
        int4 *d = (int4 *) dst;
        long long m = n >> 4, i = lane;
        for (; i + 96 < m; i += 128) {
            int4 v0 = __ldcg(s + i), v1 = __ldcg(s + i + 32), v2 = __ldcg(s + i + 64), v3 = __ldcg(s + i + 96);
            d[i] = v0; d[i + 32] = v1; d[i + 64] = v2; d[i + 96] = v3;
        }
        for (; i < m; i += 32) d[i] = __ldcg(s + i);
    } else if ((((uintptr_t) dst | (uintptr_t) src | (uintptr_t) n) & 3) == 0) {
        const int *s = (const int *) src;
        int *d = (int *) dst;
        for (long long i = lane; i < (n >> 2); i += 32) d[i] = __ldcg(s + i);
    } else {
        for (long long i = lane; i < n; i += 32) dst[i] = src[i];
    }
}

/* One warp writes n bytes to symmetric offset off of PE d. */
template <bool NV>
__device__ __forceinline__ void moe_put_rows(const ucn_moe_args &a, int d, long long off, const char *src, long long n, int lane) {
    if (NV) nvshmemx_putmem_nbi_warp(moe_at<NV>(a, d, off), src, (size_t) n, d);
    else moe_warp_copy(moe_at<NV>(a, d, off), src, n, lane);
}

/*
 * One warp makes 512 bytes of PE d's symmetric offset off readable and returns where: the mapping
 * itself (load/store), or this warp's staging slot `part` after a blocking get (NVSHMEM).
 */
template <bool NV>
__device__ __forceinline__ const int4 *moe_pull_512(const ucn_moe_args &a, int d, long long off, long long n, int part) {
    if (!NV) return (const int4 *) moe_at<NV>(a, d, off);
    char *slot = moe_scratch(a) + (long long) part * 512;
    if (n > 0) nvshmemx_getmem_warp(slot, moe_at<NV>(a, d, off), (size_t) n, d);
    return (const int4 *) slot;
}

/* Reads expert id (t, k), checking it: -1 for unused, bad (recorded) or repeated entries. */
__device__ __forceinline__ int moe_expert(const long long *idx, int t, int k, int K, int E, long long *err, bool report) {
    long long e = idx[(long long) t * K + k];
    if (e < -1 || e >= E) {
        if (report) moe_record(err, UCN_MOE_ERR_EXPERT, t, k, e);
        return -1;
    }
    if (e < 0) return -1;
    for (int j = 0; j < k; j++) {
        if (idx[(long long) t * K + j] == e) {
            if (report) moe_record(err, UCN_MOE_ERR_DUPLICATE, t, k, e);
            return -1;
        }
    }
    return (int) e;
}

/*
 * Past 32 ranks (no 32-bit rank mask): the rank of expert slot k of token t if k is the token's first
 * valid expert on that rank, else -1, so each destination of a token is counted once (ids unchecked:
 * moe_expert reports them).
 */
__device__ __forceinline__ int moe_rank_first(const long long *idx, int t, int k, int K, int E, int L) {
    const long long *row = idx + (long long) t * K;
    long long e = row[k];
    if (e < 0 || e >= E) return -1;
    int d = (int) (e / L);
    for (int j = 0; j < k; j++) {
        long long f = row[j];
        if (f >= 0 && f < E && f / L == d) return -1;
    }
    return d;
}

/* moe_expert under the active-rank mask: an entry naming an inactive rank's expert is dropped (-1). */
__device__ __forceinline__ int moe_live_expert(const ucn_moe_args &a, const long long *idx, int t, int k, int K, int E, long long *err,
                                               bool report) {
    int e = moe_expert(idx, t, k, K, E, err, report);
    return e >= 0 && !moe_live(a, e / (int) a.local_experts) ? -1 : e;
}

/* moe_rank_first under the active-rank mask: -1 for an inactive rank (all its entries are dropped). */
__device__ __forceinline__ int moe_live_rank_first(const ucn_moe_args &a, const long long *idx, int t, int k, int K, int E, int L) {
    int d = moe_rank_first(idx, t, k, K, E, L);
    return d >= 0 && !moe_live(a, d) ? -1 : d;
}

/*
 * droppedPerToken: per own token in [first, end) in steps of `stride`, the entries naming an inactive
 * rank's expert (what the host path's ExpertMask reports). Written only while the mask has an
 * inactive rank; the host reads it only then.
 */
__device__ void moe_count_drops(const ucn_moe_args &a, int first, int stride, int end) {
    if (a.dropped == 0 || !moe_any_inactive(a)) return;
    const long long *idx = (const long long *) a.topk_idx;
    int K = (int) a.topk, E = (int) a.experts, L = (int) a.local_experts;
    for (int t = first; t < end; t += stride) {
        int n = 0;
        for (int k = 0; k < K; k++) {
            long long e = idx[(long long) t * K + k];
            if (e >= 0 && e < E && !moe_live(a, (int) (e / L))) n++;
        }
        ((int *) a.dropped)[t] = n;
    }
}

/*
 * Normal mode, a warp per token t: where the token goes, one destination per lane. Up to 32 ranks
 * (WIDE false) lane d is rank d; past 32, lane j holds the token's j-th destination rank (ascending,
 * so combines sum in the same order) in *pe, found by scanning its positions 32 ranks at a time (a
 * token has at most top-k <= 32 destinations; cached routings carry no ids). Returns the lane's slot
 * on its rank (send offset + position), -1 for none.
 */
template <bool WIDE>
__device__ __forceinline__ int moe_token_dests(const int *pos, const int *send_off, int R, int t, int lane, int *pe) {
    int my_slot = -1;
    *pe = lane;
    if (!WIDE) {
        if (lane < R) {
            int p = pos[(long long) t * R + lane];
            if (p >= 0) my_slot = send_off[lane] + p;
        }
        return my_slot;
    }
    int n = 0; // destinations found so far (warp-uniform)
    for (int g0 = 0; g0 < R && n < 32; g0 += 32) {
        int d = g0 + lane, s = -1;
        if (d < R) {
            int p = pos[(long long) t * R + d];
            if (p >= 0) s = send_off[d] + p;
        }
        unsigned int b = __ballot_sync(MOE_FULL, s >= 0);
        int c = __popc(b), from = lane >= n && lane - n < c ? (int) __fns(b, 0, lane - n + 1) : 0;
        int got = __shfl_sync(MOE_FULL, s, from);
        if (lane >= n && lane - n < c) {
            my_slot = got;
            *pe = g0 + from;
        }
        n += c;
    }
    return my_slot;
}

__device__ __forceinline__ void bf16x8_add(float *acc, int4 v, float w) {
    const __nv_bfloat162 *h = (const __nv_bfloat162 *) &v;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float2 f = __bfloat1622float2(h[i]);
        acc[2 * i] += w * f.x;
        acc[2 * i + 1] += w * f.y;
    }
}

__device__ __forceinline__ int4 bf16x8_pack(const float *acc) {
    int4 v;
    __nv_bfloat162 *h = (__nv_bfloat162 *) &v;
#pragma unroll
    for (int i = 0; i < 4; i++) h[i] = __floats2bfloat162_rn(acc[2 * i], acc[2 * i + 1]);
    return v;
}
