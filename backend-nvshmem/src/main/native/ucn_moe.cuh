/*
 * MoE dispatch/combine kernels (included by ucn_ops.cu: one translation unit, one error slot).
 *
 * Every PE of the job maps every other PE's symmetric block (nvshmem_ptr), so tokens move with
 * plain loads and stores between PEs' GPU memory: the sender writes rows straight into the
 * receiver's receive area, the combine pulls rows back and sums them. Coordination is through
 * words in the symmetric block:
 *   - counts, tagged with the operation's sequence number in the high 32 bits, so a reader
 *     knows a value is this operation's (two parities: a fast PE can be one operation ahead);
 *   - monotonic arrival counters (each block of each PE adds 1 when its writes are fenced),
 *     compared with a target the host tracks; never reset, so no reset can race an add.
 * Every spin has a deadline (the communicator's timeout): a dead peer ends as an error record
 * (err[0..3]) that the host turns into an exception, never a hang.
 * Orderings follow notes/moe-semantics.md: receivers get tokens by source rank, then source index.
 */
#include <cuda_fp8.h>
#include <stdlib.h>
#include "ucn_moe.h"

#define MOE_FULL 0xffffffffu

/*
 * Release/acquire in the PTX memory model: lighter than __threadfence*() (fence.sc), which order
 * more than completion signals need (one H200: 0.3-0.9 us less per signalled operation).
 */
__device__ __forceinline__ void moe_fence_release_sys(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
__device__ __forceinline__ void moe_fence_acquire_gpu(void) { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ void moe_store_release_sys(volatile long long *p, long long v) {
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void moe_store_release_gpu(volatile unsigned long long *p, unsigned long long v) {
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned int moe_add_acq_rel_gpu(unsigned int *p, unsigned int v) {
    unsigned int old;
    asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

__device__ __forceinline__ unsigned long long moe_now(void) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ void moe_record(long long *err, long long code, long long a, long long b, long long c) {
    if (atomicCAS((unsigned long long *) err, 0ULL, (unsigned long long) code) == 0ULL) {
        err[1] = a;
        err[2] = b;
        err[3] = c;
    }
}

/*
 * Where a spin stops early: the abort word in the operation's pinned host slot, which the host sets
 * when the job is aborted (a peer died), so that no kernel keeps the GPU busy until its deadline.
 * It lives in host memory, so it is read only every MOE_ABORT_POLL spins (a PCIe round trip).
 */
#define MOE_ABORT_POLL 4096
__device__ __forceinline__ const volatile long long *moe_abort_word(const ucn_moe_args &a) {
    return a.host_slot == 0 ? nullptr : (const volatile long long *) a.host_slot + 5;
}

/* True (and an error record) when a spin must end: past the deadline, or the host aborted the job. */
__device__ bool moe_spin_ends(unsigned int spins, unsigned long long deadline, const volatile long long *abort,
                              long long *err, long long who, long long what, long long v) {
    if (moe_now() > deadline) {
        moe_record(err, UCN_MOE_ERR_TIMEOUT, who, what, v);
        return true;
    }
    if (spins % MOE_ABORT_POLL == 0 && abort != nullptr && *abort != 0) {
        moe_record(err, UCN_MOE_ERR_ABORTED, who, what, v);
        return true;
    }
    return false;
}

/* Spins until *p >= v (unsigned); false (and an error record) at the deadline or on abort. */
__device__ bool moe_wait_ge(const unsigned long long *p, unsigned long long v, unsigned long long deadline,
                            const volatile long long *abort, long long *err, long long who, long long what) {
    for (unsigned int spins = 1; *(const volatile unsigned long long *) p < v; spins++)
        if (moe_spin_ends(spins, deadline, abort, err, who, what, (long long) v)) return false;
    moe_fence_acquire_gpu(); // the writes the counter's adders released are visible to this thread
    return true;
}

/* Spins until the tag (high 32 bits) of *p is tag; returns the low 32 bits, or -1 at the deadline or on abort. */
__device__ int moe_wait_tag(const unsigned long long *p, unsigned int tag, unsigned long long deadline,
                            const volatile long long *abort, long long *err, long long who) {
    unsigned long long v;
    for (unsigned int spins = 1; (unsigned int) ((v = *(const volatile unsigned long long *) p) >> 32) != tag; spins++)
        if (moe_spin_ends(spins, deadline, abort, err, who, 0, (long long) tag)) return -1;
    return (int) (unsigned int) v;
}

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

/* What one PE's grid adds to a receiver's counter per operation, whatever its size (NvMoeArgs.SIGNAL_PER_OP). */
#define MOE_SIGNAL_PER_OP (1ULL << 20)

/*
 * The two transports. Load/store (a.transport 0): every PE's symmetric block is mapped here
 * (peers[d]), rows move with plain stores and loads. NVSHMEM (1): PEs on other nodes; rows move
 * with warp-wide puts and gets, words with nvshmem p, counters with signal operations, always
 * naming this PE's own symmetric address and the target PE.
 */
template <bool NV>
__device__ __forceinline__ char *moe_at(const ucn_moe_args &a, int d, long long off) {
    const long long *peers = (const long long *) a.peers;
    return (char *) (NV ? peers[a.rank] : peers[d]) + off;
}

/* Writes one 64-bit word at symmetric offset off of PE d. */
template <bool NV>
__device__ __forceinline__ void moe_put_word(const ucn_moe_args &a, int d, long long off, unsigned long long v) {
    if (NV) nvshmem_uint64_p((uint64_t *) moe_at<NV>(a, d, off), v, d);
    else *(volatile unsigned long long *) moe_at<NV>(a, d, off) = v;
}


/* This warp's staging bytes (NVSHMEM transport). */
__device__ __forceinline__ char *moe_scratch(const ucn_moe_args &a) {
    long long warp = (long long) blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    return (char *) a.scratch + warp * a.scratch_per_warp;
}

/*
 * Makes this block's writes complete, then adds to word [index] of every PE's counter array at
 * off: 1 per block, block 0 the rest of MOE_SIGNAL_PER_OP, so the sum reaches the target only
 * once every block of the grid has added, and PEs need not agree on grid sizes.
 */
template <bool NV>
__device__ void moe_signal_all(const ucn_moe_args &a, long long off, long long index) {
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long v = blockIdx.x == 0 ? MOE_SIGNAL_PER_OP - gridDim.x + 1 : 1ULL;
        if (NV) {
            nvshmem_quiet(); // this PE's puts are delivered before the counters move
            for (int d = 0; d < a.nranks; d++) nvshmemx_signal_op((uint64_t *) moe_at<NV>(a, d, off + index * 8), v, NVSHMEM_SIGNAL_ADD, d);
        } else {
            moe_fence_release_sys(); // the block's stores (ordered by __syncthreads) before the counters
            for (int d = 0; d < a.nranks; d++) atomicAdd_system((unsigned long long *) moe_at<NV>(a, d, off + index * 8), v);
        }
    }
}

/*
 * Tells the host the operation is complete: the error record (only if there is one: the host
 * zeroes the slot's code when it reads a record), then the sequence number, into the pinned slot
 * the host polls. The stamp is a release store, so everything this thread has seen written (info
 * ints, the grid's results) is visible first. Cheaper than a stream query and a copy: the host
 * sees the end within a few hundred nanoseconds.
 */
__device__ void moe_publish(const ucn_moe_args &a) {
    volatile long long *slot = (volatile long long *) a.host_slot;
    const volatile long long *err = (const volatile long long *) a.err;
    if (err[0] != 0)
        for (int i = 0; i < 4; i++) slot[1 + i] = err[i];
    moe_store_release_sys(slot, a.seq);
}

/*
 * Thread 0 of each block counts its block in at count (the slot's grid_done word, 0 between uses):
 * release of the block's writes (ordered by __syncthreads), acquire of the earlier blocks'. True in
 * the last block, which resets the count for the next use before anything it publishes.
 */
__device__ __forceinline__ bool moe_last_block_arrives(unsigned int *count) {
    if (moe_add_acq_rel_gpu(count, 1u) != gridDim.x - 1) return false;
    *(volatile unsigned int *) count = 0;
    return true;
}

/*
 * Every block calls this last: the last block to finish publishes (the grid's stores are then all
 * done). True in the thread that published.
 */
__device__ bool moe_last_block_publishes(const ucn_moe_args &a) {
    __syncthreads();
    if (threadIdx.x == 0 && moe_last_block_arrives((unsigned int *) a.grid_done)) {
        moe_publish(a); // the stamp covers every block's writes (acquired by the arrival)
        return true;
    }
    return false;
}

/*
 * Sequencing of a low-latency operation: from the host's arguments, or (stream-ordered mode,
 * a.ctl set) from the device counters, which the operation itself advances when it ends. The
 * stream-ordered mode uses one receive generation: its operations alternate dispatch, combine.
 */
struct moe_seq {
    unsigned long long gen, expected;
    int p;
};

__device__ __forceinline__ moe_seq moe_sequence(const ucn_moe_args &a, int which) {
    moe_seq q;
    if (a.ctl == 0) {
        q.gen = (unsigned long long) a.gen;
        q.expected = (unsigned long long) a.expected;
        q.p = (int) (a.gen & 1);
        return q;
    }
    const volatile unsigned long long *ctl = (const volatile unsigned long long *) a.ctl;
    q.gen = which == 1 ? ctl[0] + 1 : ctl[0]; // a combine belongs to the latest dispatch
    q.expected = (ctl[which] + 1) * MOE_SIGNAL_PER_OP;
    q.p = 0;
    return q;
}

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

// ------------------------------------------------------------------------------------- layout

/* One block: tokensPerRank [R], tokensPerExpert [E] (int32), isTokenInRank [T][R] (bytes). */
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
            int e = moe_expert(idx, t, k, K, E, err, true);
            if (e < 0) continue;
            atomicAdd(&cnt_e[e], 1);
            mask |= 1u << (e / L);
        }
        for (int d = 0; d < R; d++) {
            in_rank[(long long) t * R + d] = (mask >> d) & 1;
            if ((mask >> d) & 1) atomicAdd(&cnt_r[d], 1);
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < E; e += blockDim.x) ((int *) a.layout_expert)[e] = cnt_e[e];
    for (int d = threadIdx.x; d < R; d += blockDim.x) ((int *) a.layout_rank)[d] = cnt_r[d];
    __syncthreads();
    if (threadIdx.x == 0) moe_publish(a); // a release store: the block's writes above come first
}

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
            for (unsigned int spins = 1; *release != (unsigned long long) a.seq; spins++)
                if (moe_spin_ends(spins, deadline, moe_abort_word(a), (long long *) a.err, a.rank, 5, 0)) break;
            moe_fence_acquire_gpu(); // the volatile load above, made an acquire
        }
    }
    __syncthreads();
}

/*
 * Routing and the count exchange, a block per slice of the tokens. Each block finds its tokens'
 * destinations and per-expert counts and publishes its totals (part_counts[block][E | R]); after
 * a grid barrier each block numbers its tokens per destination after the earlier blocks' (ballot
 * scan, in token order: pos), and block 0 sends every PE this PE's row of the count matrix
 * [src][R tokens-per-rank | L tokens-per-local-expert], waits for the full matrix, then writes the
 * send offsets (device) and N + per-expert counts (info).
 */
template <bool NV>
__global__ void __launch_bounds__(1024) moe_normal_prep_kernel(ucn_moe_args a) {
    extern __shared__ int sh[];
    MOE_TRACE_BEGIN;
    int E = (int) a.experts, R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts;
    int me = (int) a.rank, lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    int per = (T + gridDim.x - 1) / gridDim.x, t0 = min(T, (int) blockIdx.x * per), t1 = min(T, t0 + per);
    int *cnt_e = sh, *base = sh + E, *tot = base + R, *wsum = tot + R; // wsum: [32 warps][R]
    unsigned int *mask_of = (unsigned int *) (wsum + 32 * R); // [t1 - t0]: bit d = token goes to rank d
    for (int i = threadIdx.x; i < E; i += blockDim.x) cnt_e[i] = 0;
    if (threadIdx.x < R) base[threadIdx.x] = tot[threadIdx.x] = 0;
    __syncthreads();
    const long long *idx = (const long long *) a.topk_idx;
    long long *err = (long long *) a.err;
    int *pos = (int *) a.pos, *part = (int *) a.part_counts;
    // A thread per token; up to 16 ids in registers, loaded together.
    for (int t = t0 + threadIdx.x; t < t1; t += blockDim.x) {
        unsigned int mask = 0;
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
                atomicAdd(&cnt_e[e], 1);
                mask |= 1u << (e / L);
            }
        } else {
            for (int k = 0; k < K; k++) {
                int e = moe_expert(idx, t, k, K, E, err, true);
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
    if (threadIdx.x < R) {
        int b = 0;
        for (int j = 0; j < (int) blockIdx.x; j++) b += ((volatile int *) part)[(long long) j * (E + R) + E + threadIdx.x];
        base[threadIdx.x] = b;
    }
    __syncthreads();
    // Positions: per chunk of blockDim tokens, a ballot per destination, one scan over the warps
    // for all destinations at once (two barriers per chunk, whatever R).
    for (int c0 = t0; c0 < t1; c0 += blockDim.x) {
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
        unsigned int v = j < R ? base[j] : cnt_e[d * L + j - R];
        moe_put_word<NV>(a, d, a.off_cnt + (((long long) p * R + me) * row + j) * 8, tag | v);
    }
    const unsigned long long *m = (const unsigned long long *) (peers[me] + a.off_cnt) + (long long) p * R * row;
    MOE_PHASE; // 4: counts sent
    __syncthreads();
    for (int i = threadIdx.x; i < R * row; i += blockDim.x) moe_wait_tag(m + i, (unsigned int) a.gen, deadline, moe_abort_word(a), err, i / row);
    __syncthreads();
    MOE_PHASE; // 5: count matrix complete
    moe_trace_end(tr, 3);
    int *info = (int *) a.info;
    if (threadIdx.x < R) {
        int s_off = 0;
        for (int s = 0; s < me; s++) s_off += (int) (unsigned int) m[s * row + threadIdx.x];
        ((int *) a.send_off)[threadIdx.x] = s_off;
    }
    if (threadIdx.x == 0) {
        int n = 0;
        for (int s = 0; s < R; s++) n += (int) (unsigned int) m[s * row + me];
        info[0] = n;
    }
    for (int le = threadIdx.x; le < L; le += blockDim.x) {
        int n = 0;
        for (int s = 0; s < R; s++) n += (int) (unsigned int) m[s * row + R + le];
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
template <bool NV, bool CACHED>
__global__ void __launch_bounds__(512) moe_normal_dispatch_kernel(ucn_moe_args a) {
    MOE_TRACE_BEGIN;
    int R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, L = (int) a.local_experts, E = (int) a.experts;
    int lane = threadIdx.x & 31;
    long long H = a.hidden, row_bytes = a.fp8 ? H : 2 * H, scale_bytes = (H / 128) * 4;
    const long long *peers = (const long long *) a.peers;
    if (CACHED) {
        long long row = R + L, p = a.gen & 1;
        unsigned long long tag = (unsigned long long) (unsigned int) a.gen << 32;
        if (blockIdx.x == 0 && threadIdx.x < R) moe_put_word<NV>(a, threadIdx.x, a.off_cnt + ((p * R + a.rank) * row) * 8, tag);
        const unsigned long long *m = (const unsigned long long *) (peers[a.rank] + a.off_cnt) + p * R * row;
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        if (threadIdx.x < R) moe_wait_tag(m + threadIdx.x * row, (unsigned int) a.gen, deadline, moe_abort_word(a), (long long *) a.err, threadIdx.x);
        __syncthreads();
        MOE_PHASE; // 1: every PE entered
    }
    const int *pos = (const int *) a.pos, *send_off = (const int *) a.send_off;
    const long long *idx = (const long long *) a.topk_idx;
    const float *w = (const float *) a.topk_w;
    int warps = gridDim.x * (blockDim.x >> 5);
    for (int t = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); t < T; t += warps) {
        int my_slot = -1;
        if (lane < R) {
            int p = pos[(long long) t * R + lane];
            if (p >= 0) my_slot = send_off[lane] + p;
        }
        unsigned int dests = __ballot_sync(MOE_FULL, my_slot >= 0);
        const char *src = (const char *) a.x + t * row_bytes;
        // Lane d: where the row goes on PE d. The row is read once and stored to every destination.
        long long dst = my_slot >= 0 && !NV ? peers[lane] + a.off_recv + my_slot * row_bytes : 0;
        const int4 *s4 = (const int4 *) src;
        long long m = NV ? 0 : row_bytes >> 4;
        for (unsigned int dm = NV ? dests : 0; dm; dm &= dm - 1) {
            int d = __ffs(dm) - 1;
            moe_put_rows<NV>(a, d, a.off_recv + (long long) __shfl_sync(MOE_FULL, my_slot, d) * row_bytes, src, row_bytes, lane);
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
            int d = __ffs(dm) - 1;
            long long slot = __shfl_sync(MOE_FULL, my_slot, d);
            if (a.fp8)
                moe_put_rows<NV>(a, d, a.off_recv_scales + slot * scale_bytes, (const char *) a.x_scales + t * scale_bytes, scale_bytes, lane);
            if (idx != 0) {
                for (int k = lane; k < K; k += 32) {
                    int e = moe_expert(idx, t, k, K, E, (long long *) a.err, false);
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
    if (threadIdx.x < R) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        moe_wait_ge((const unsigned long long *) (peers[a.rank] + a.off_done) + threadIdx.x, (unsigned long long) a.expected,
                    deadline, moe_abort_word(a), (long long *) a.err, threadIdx.x, 1);
    }
    __syncthreads();
    MOE_PHASE; // 3: every PE's rows arrived
    moe_trace_end(tr, 4);
    if (threadIdx.x == 0) moe_publish(a); // every PE's rows for this PE have arrived
}

/*
 * Grid: stages y (and weights) into this PE's receive area unless they are already there, signals
 * every PE, waits for all PEs' staging, then a warp per own token pulls the token's rows back from
 * every PE that received it and sums them in fp32 (bf16 once at the end), and sums the weights.
 */
template <bool NV>
__global__ void __launch_bounds__(512) moe_normal_combine_kernel(ucn_moe_args a) {
    MOE_TRACE_BEGIN;
    int R = (int) a.nranks, T = (int) a.tokens, K = (int) a.topk, me = (int) a.rank;
    int lane = threadIdx.x & 31;
    long long H = a.hidden, row_bytes = 2 * H;
    const long long *peers = (const long long *) a.peers;
    char *own = (char *) peers[me];
    int warps = gridDim.x * (blockDim.x >> 5), gw = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (a.y != 0)
        for (long long r = gw; r < a.recv_tokens; r += warps)
            moe_warp_copy(own + a.off_recv + r * row_bytes, (const char *) a.y + r * row_bytes, row_bytes, lane);
    if (a.y_w != 0)
        for (long long r = gw; r < a.recv_tokens; r += warps)
            moe_warp_copy(own + a.off_recv_w + r * K * 4, (const char *) a.y_w + r * K * 4, K * 4, lane);
    MOE_PHASE; // 1: staged
    moe_signal_all<NV>(a, a.off_ready, me);
    MOE_PHASE; // 2: signalled
    if (threadIdx.x < R) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        moe_wait_ge((const unsigned long long *) (own + a.off_ready) + threadIdx.x, (unsigned long long) a.expected,
                    deadline, moe_abort_word(a), (long long *) a.err, threadIdx.x, 2);
    }
    __syncthreads();
    MOE_PHASE; // 3: every PE staged
    // Warp-uniform (lane 0's view), so no warp splits around its shuffles.
    bool ok = __shfl_sync(MOE_FULL, (int) (*(volatile long long *) a.err == 0), 0);
    const int *pos = (const int *) a.pos, *send_off = (const int *) a.send_off;
    for (int t = gw; ok && t < T; t += warps) {
        int my_slot = -1;
        if (lane < R) {
            int p = pos[(long long) t * R + lane];
            if (p >= 0) my_slot = send_off[lane] + p;
        }
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
                    int d = __ffs(dm) - 1;
                    long long slot = __shfl_sync(MOE_FULL, my_slot, d);
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
                    int d0 = __ffs(dm) - 1;
                    dm &= dm - 1;
                    int d1 = dm ? __ffs(dm) - 1 : d0;
                    bool two = dm != 0;
                    if (two) dm &= dm - 1;
                    const int4 *p0 = (const int4 *) (peers[d0] + a.off_recv + __shfl_sync(MOE_FULL, my_slot, d0) * row_bytes);
                    const int4 *p1 = (const int4 *) (peers[d1] + a.off_recv + __shfl_sync(MOE_FULL, my_slot, d1) * row_bytes);
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
                    long long slot = __shfl_sync(MOE_FULL, my_slot, __ffs(dm) - 1);
                    int d = __ffs(dm) - 1;
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
__device__ __forceinline__ int moe_ll_slot(const unsigned int *bits, const unsigned long long *m, int W, int E, int me, int e, int t) {
    int slot = 0;
    for (int s = 0; s < me; s++) slot += (int) (unsigned int) m[(long long) s * E + e];
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
            e = moe_expert(idx, t, lane, K, E, err, false);
            if (e >= 0) {
                d = e / L;
                row = (long long) (e % L) * slots + moe_ll_slot(bits, m, W, E, me, e, t);
            }
        }
        if (g == 0) {
            if (lane < K) route[(long long) t * K + lane] = e >= 0 ? make_int2(e, (int) (row - (long long) (e % L) * slots)) : make_int2(-1, -1);
            for (int k = 0; k < K; k++) {
                int dk = __shfl_sync(MOE_FULL, d, k);
                long long rk = __shfl_sync(MOE_FULL, row, k);
                if (lane < R) moe_map_put(a, lane, p, t, k, tag | (rk >= 0 && lane == dk ? (unsigned long long) rk + 1 : 0ULL));
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
template <bool NV>
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
        int e = moe_expert(idx, t, k, K, E, err, false);
        if (e < 0) {
            if (lane == 0 && part == 0) route[item] = make_int2(-1, -1);
            if (!NV && part == 0 && lane < R) moe_map_put(a, lane, p, t, k, tag);
            continue;
        }
        int d = e / L, slot = moe_ll_slot(bits, m, W, E, me, e, t);
        if (lane == 0 && part == 0) route[item] = make_int2(e, slot);
        long long row = (long long) (e % L) * slots + slot;
        if (!NV && part == 0 && lane < R) moe_map_put(a, lane, p, t, k, tag | (lane == d ? (unsigned long long) row + 1 : 0ULL));
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

/*
 * Grid: every block builds, in shared memory, a bitmap per expert of the tokens selecting it
 * (the slot of (t, e) among this PE's tokens is the popcount of the bits before t); block 0 sends
 * the per-expert counts to every PE (count matrix [src][E], tagged); every block waits for the
 * whole matrix, so a slot's base (tokens of lower source ranks) is known everywhere without
 * another exchange. Then the rows go straight into the experts' PEs (bf16, or e4m3 + a scale per 128
 * channels quantised on the way; load/store FP8: moe_ll_store_pieces, else moe_ll_rows_per_slot), the
 * (expert, slot) pairs are recorded for the combine, and each block signals every PE.
 */
template <bool NV>
__global__ void __launch_bounds__(1024) moe_ll_dispatch_kernel(ucn_moe_args a) {
    extern __shared__ unsigned int bits[];
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
        int t = i / K, e = moe_expert(idx, t, i % K, K, E, err, blockIdx.x == 0);
        if (e >= 0) atomicOr(&bits[e * W + t / 32], 1u << (t % 32));
    }
    __syncthreads();
    MOE_PHASE; // 1: bitmaps built
    unsigned long long tag = (unsigned long long) (unsigned int) q.gen << 32;
    const unsigned long long *m = (const unsigned long long *) (peers[me] + a.off_cnt) + (long long) p * R * E;
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < E * R; i += blockDim.x) {
            int e = i % E, d = i / E;
            unsigned int c = 0;
            for (int j = 0; j < W; j++) c += __popc(bits[e * W + j]);
            moe_put_word<NV>(a, d, a.off_cnt + (((long long) p * R + me) * E + e) * 8, tag | c);
        }
    }
    float first_scale = 0.f;
    int4 first_q = !NV && a.fp8 ? moe_ll_first_piece(a, &first_scale) : make_int4(0, 0, 0, 0);
    unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
    for (int i = threadIdx.x; i < R * E; i += blockDim.x) moe_wait_tag(m + i, (unsigned int) q.gen, deadline, moe_abort_word(a), err, i / E);
    __syncthreads();
    MOE_PHASE; // 2: count matrix complete
    if (blockIdx.x == 0) {
        for (int le = threadIdx.x; le < L; le += blockDim.x) {
            int n = 0;
            for (int s = 0; s < R; s++) n += (int) (unsigned int) m[(long long) s * E + (long long) me * L + le];
            ((int *) a.recv_count)[p * L + le] = n;
            ((int *) a.info)[le] = n;
        }
    }
    int2 *route = (int2 *) a.route + (long long) p * maxT * K;
    if (!NV && a.fp8) moe_ll_store_pieces(a, bits, m, W, p, tag, route, first_q, first_scale);
    else moe_ll_rows_per_slot<NV>(a, bits, m, W, p, tag, route);
    MOE_PHASE; // 3: rows written
    moe_signal_all<NV>(a, a.off_done, (long long) p * R + me);
    MOE_PHASE; // 4: signalled
    if (blockIdx.x != 0) moe_trace_end(tr, 1);
    // Block 0 stays to see every PE's tokens arrive, then tells the host (the receive hook polls).
    if (blockIdx.x != 0) return;
    if (threadIdx.x < R) {
        const unsigned long long *done = (const unsigned long long *) (peers[me] + a.off_done);
        unsigned long long until = moe_now() + (unsigned long long) a.timeout_ns;
        moe_wait_ge(done + (long long) p * R + threadIdx.x, q.expected, until, moe_abort_word(a), err, threadIdx.x, 3);
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

/*
 * The NVSHMEM transport's low-latency combine (loads/stores use moe_ll_combine_push_kernel).
 * Grid: stages y's valid rows into this PE's receive area of the dispatch's parity (unless y is
 * already there), signals every PE, waits for all, then a warp per own token pulls the token's
 * expert outputs from the experts' PEs and sums them weighted (fp32, bf16 once).
 */
template <bool NV>
__global__ void __launch_bounds__(1024) moe_ll_combine_kernel(ucn_moe_args a) {
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
    if (threadIdx.x < R) {
        unsigned long long deadline = moe_now() + (unsigned long long) a.timeout_ns;
        moe_wait_ge((const unsigned long long *) ((char *) peers[me] + a.off_ready) + (long long) p * R + threadIdx.x,
                    q.expected, deadline, moe_abort_word(a), (long long *) a.err, threadIdx.x, 4);
    }
    __syncthreads();
    // Warp-uniform (lane 0's view), so no warp splits around its shuffles.
    bool ok = __shfl_sync(MOE_FULL, (int) (*(volatile long long *) a.err == 0), 0);
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
            if (r.x >= 0) {
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
__global__ void __launch_bounds__(1024) moe_ll_combine_push_kernel(ucn_moe_args a) {
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
        if (r.x < 0) continue;
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
                                                          : moe_wait_tag(wt + st * K + lane, tag, deadline, moe_abort_word(a), err, s);
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
        ok = __all_sync(MOE_FULL, *(volatile long long *) err == 0); // after the stores: off the loads' path
    }
    MOE_PHASE; // 2: sums pushed
    moe_signal_all<false>(a, a.off_ready, (long long) p * R + me);
    MOE_PHASE; // 3: signalled
    const unsigned long long *ready = (const unsigned long long *) (own + a.off_ready) + (long long) p * R;
    if (threadIdx.x < R) moe_wait_ge(ready + threadIdx.x, q.expected, deadline, moe_abort_word(a), err, threadIdx.x, 4);
    __syncthreads();
    MOE_PHASE; // 4: every PE's sums arrived
    ok = __shfl_sync(MOE_FULL, (int) (*(volatile long long *) err == 0), 0);
    // C: every PE's share of each own token, summed.
    const char *comb = own + a.off_comb + (long long) p * R * maxT * slot_bytes;
    for (long long item = gw; ok && item < (long long) T * chunks; item += warps) {
        int t = (int) (item / chunks);
        long long c = (item % chunks) * 32 + lane;
        int pe = -1;
        float wk = 0.f;
        if (lane < K) {
            int2 r = route[(long long) t * K + lane];
            if (r.x >= 0) {
                pe = r.x / L;
                wk = w[(long long) t * K + lane];
            }
        }
        unsigned int pes = __reduce_or_sync(MOE_FULL, pe >= 0 ? 1u << pe : 0u);
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (unsigned int dm = pes; dm; dm &= dm - 1) {
            int d = __ffs(dm) - 1;
            unsigned int ks = __ballot_sync(MOE_FULL, pe == d);
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
    return moe_timed(moe_layout_kernel, "moe_layout_kernel", 1, 1024, (a.experts + a.nranks) * 4, a);
}

/* Normal dispatch: the count exchange (with cached routing: a barrier instead) and the data kernel. */
int ucn_ops_moe_normal_dispatch(const long long *raw, int n, int cached) {
    MOE_PARSE("moe_normal_dispatch_kernel");
    if (cached) /* no count exchange; the kernel itself waits until every PE has entered the operation */
        return moe_timed(a.transport ? moe_normal_dispatch_kernel<true, true> : moe_normal_dispatch_kernel<false, true>,
                         "moe_normal_dispatch_kernel", (unsigned) a.blocks, (unsigned) a.threads, 0, a);
    moe_kernel prep = a.transport ? moe_normal_prep_kernel<true> : moe_normal_prep_kernel<false>;
    moe_kernel data = a.transport ? moe_normal_dispatch_kernel<true, false> : moe_normal_dispatch_kernel<false, false>;
    moe_ev_kernels = 2;
    moe_mark(0, a.stream);
    /* A block per 256 tokens (at most this PE's blocks: they wait for each other, so all must be resident). */
    long long grid = (a.tokens + 255) / 256;
    if (grid > a.blocks) grid = a.blocks;
    if (grid < 1) grid = 1;
    if ((rc = moe_launch(prep, "moe_normal_prep_kernel", (unsigned) grid, 512, (a.experts + 34 * a.nranks + a.tokens) * 4, a))) return rc;
    moe_mark(1, a.stream);
    rc = moe_launch(data, "moe_normal_dispatch_kernel", (unsigned) a.blocks, (unsigned) a.threads, 0, a);
    moe_mark(2, a.stream);
    return rc;
}

int ucn_ops_moe_normal_combine(const long long *raw, int n) {
    MOE_PARSE("moe_normal_combine_kernel");
    return moe_timed(a.transport ? moe_normal_combine_kernel<true> : moe_normal_combine_kernel<false>, "moe_normal_combine_kernel", (unsigned) a.blocks, (unsigned) a.threads, 0, a);
}

int ucn_ops_moe_ll_dispatch(const long long *raw, int n) {
    MOE_PARSE("moe_ll_dispatch_kernel");
    return moe_timed(a.transport ? moe_ll_dispatch_kernel<true> : moe_ll_dispatch_kernel<false>, "moe_ll_dispatch_kernel", (unsigned) a.blocks, (unsigned) a.threads,
                     a.experts * ((a.max_tokens + 31) / 32) * 4, a);
}

int ucn_ops_moe_ll_combine(const long long *raw, int n) {
    MOE_PARSE("moe_ll_combine_kernel");
    // Loads/stores: the experts' PEs push summed rows; NVSHMEM transport: the owners pull every row.
    return moe_timed(a.transport ? moe_ll_combine_kernel<true> : moe_ll_combine_push_kernel, "moe_ll_combine_kernel", (unsigned) a.blocks, (unsigned) a.threads, 0, a);
}

}
