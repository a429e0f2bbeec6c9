/*
 * The two transports (load/store, NVSHMEM) for words, and the signalling built on them: arrival
 * counters, completion stamps for the host, last-block detection and per-operation sequence numbers.
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
#include "ucn_moe_sync.cuh"

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
 * Makes this block's writes complete, then adds to word [index] of every active PE's counter array at
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
            for (int d = 0; d < a.nranks; d++)
                if (moe_live(a, d)) nvshmemx_signal_op((uint64_t *) moe_at<NV>(a, d, off + index * 8), v, NVSHMEM_SIGNAL_ADD, d);
        } else {
            moe_fence_release_sys(); // the block's stores (ordered by __syncthreads) before the counters
            for (int d = 0; d < a.nranks; d++)
                if (moe_live(a, d)) atomicAdd_system((unsigned long long *) moe_at<NV>(a, d, off + index * 8), v);
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
