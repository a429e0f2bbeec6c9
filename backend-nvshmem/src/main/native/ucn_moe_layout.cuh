/*
 * The layout kernel (MoeBuffer.layout): per-rank and per-expert token counts of a top-k routing.
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_rows.cuh"

// ------------------------------------------------------------------------------------- layout

/* One block: tokensPerRank [R], tokensPerExpert [E] (int32), isTokenInRank [T][R] (bytes). */
template <bool WIDE> // more than 32 ranks: no 32-bit rank mask
__global__ void __launch_bounds__(1024) moe_layout_kernel(ucn_moe_args a) {
    extern __shared__ int sh[];
    int E = (int) a.experts, R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts;
    int *cnt_e = sh, *cnt_r = sh + E;
    for (int i = threadIdx.x; i < E + R; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    const long long *idx = (const long long *) a.topk_idx;
    long long *err = (long long *) a.err;
    unsigned char *in_rank = (unsigned char *) a.layout_in_rank;
    for (int t = threadIdx.x; t < T; t += blockDim.x) {
        unsigned int mask = 0;
        for (int k = 0; k < K; k++) {
            int e = moe_live_expert(a, idx, t, k, K, E, err, true);
            if (e < 0) continue;
            atomicAdd(&cnt_e[e], 1);
            if (!WIDE) mask |= 1u << (e / L);
        }
        if (!WIDE) {
            for (int d = 0; d < R; d++) {
                in_rank[(long long) t * R + d] = (mask >> d) & 1;
                if ((mask >> d) & 1) atomicAdd(&cnt_r[d], 1);
            }
        } else { // past 32 ranks no mask: clear the row, then mark each destination at its first expert
            for (int d = 0; d < R; d++) in_rank[(long long) t * R + d] = 0;
            for (int k = 0; k < K; k++) {
                int d = moe_live_rank_first(a, idx, t, k, K, E, L);
                if (d < 0) continue;
                in_rank[(long long) t * R + d] = 1;
                atomicAdd(&cnt_r[d], 1);
            }
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < E; e += blockDim.x) ((int *) a.layout_expert)[e] = cnt_e[e];
    for (int d = threadIdx.x; d < R; d += blockDim.x) ((int *) a.layout_rank)[d] = cnt_r[d];
    __syncthreads();
    if (threadIdx.x == 0) moe_publish(a); // a release store: the block's writes above come first
}
