/*
 * Memory orders, clocks, error records and bounded spins: the waits every MoE kernel is built from.
 * Every spin ends at a deadline or on the host's abort word, so a dead peer becomes an error record
 * (err[0..3]) that the host turns into an exception, never a hang.
 * Part of the MoE kernels: ucn_moe.cuh includes the parts in order into ucn_ops.cu (one translation unit).
 */
#pragma once
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
/* How often a spin of an elastic buffer looks past L1 for a peer another block has already marked gone. */
#define MOE_MARK_POLL 1024
__device__ __forceinline__ const volatile long long *moe_abort_word(const ucn_moe_args &a) {
    return a.host_slot == 0 ? nullptr : (const volatile long long *) a.host_slot + 5;
}

/*
 * Whether PE d is in this PE's active set (the buffer's device mask, a.active; 0: all active). A load
 * per use, so a mask changed between two launches or graph replays is what the next one sees; a plain
 * (L1-cached) load, not volatile: inside a kernel the mask changes only by this block's own marks
 * (moe_lose), which its threads see after the __syncthreads that follows every wait (each block does its
 * own waits). Inactive PEs are neither sent to nor waited for, and their experts' top-k entries are dropped.
 */
__device__ __forceinline__ bool moe_live(const ucn_moe_args &a, int d) {
    return a.active == 0 || a.all_live != 0 || ((const int *) a.active)[d] != 0;
}

/*
 * The kernels' view of their arguments. Unmasked variants (MASKED false), which the host launches only when it set
 * a.all_live (host-sequenced, not elastic, every rank active), see no mask and no elastic flag, so the compiler
 * folds the mask's reads and the elastic waits' branches away (the view is a local copy whose fields it can
 * track; every helper is inlined). Reading them in every kernel cost the low-latency kernels 2-6 % of their time
 * with every rank active (one H100), where the folded code is as fast as before the mask.
 */
template <bool MASKED>
__device__ __forceinline__ ucn_moe_args moe_view(const ucn_moe_args &in) {
    ucn_moe_args a = in;
    if (!MASKED) {
        a.active = 0;
        a.elastic = 0;
    }
    return a;
}

/* Whether the mask has an inactive rank (its last word, nonzero once one is). */
__device__ __forceinline__ bool moe_any_inactive(const ucn_moe_args &a) {
    return a.active != 0 && a.all_live == 0 && ((const int *) a.active)[a.nranks] != 0;
}

/*
 * Elastic buffers (a.elastic): PE who did not answer in time. It leaves this PE's mask at once (every
 * later wait and send of this operation and of the next ones skips it) and the host learns of it through
 * the error record (UCN_MOE_ERR_LOST, unless a real error came first: the host then reads the mask too).
 */
__device__ void moe_lose(const ucn_moe_args &a, long long *err, long long who, long long what, long long v) {
    volatile int *act = (volatile int *) a.active;
    act[who] = 0;
    act[a.nranks] = 1;
    if (a.host_mask != 0) ((volatile int *) a.host_mask)[who] = 0;
    __threadfence_system(); // the marks before the record (the host reads the mirror once it sees the record)
    moe_record(err, UCN_MOE_ERR_LOST, who, what, v);
}

/* Whether the operation may use what it has: no error, or only a lost peer (elastic). */
__device__ __forceinline__ bool moe_ok(const ucn_moe_args &a) {
    long long c = *(const volatile long long *) a.err;
    return c == 0 || c == UCN_MOE_ERR_LOST;
}

/*
 * Elastic buffers, at a wait's deadline: how long to look again before deciding. A survivor that waits on a dead
 * peer answers its own peers only after its timeout, so they would find it late too; within the grace this PE's
 * own wait on the dead peer (same kernel start, same timeout) records the loss, and a wait that then sees a loss
 * in this operation gives its peer one more timeout (stage 2) instead of marking it gone.
 */
#define MOE_LOSS_GRACE_NS 20000000ULL

/*
 * One wait: its deadline and, for an elastic wait, its stage (0, then 1 in the grace, 2 in the extra timeout).
 * Whether the wait is elastic is decided once, before the spin, so a spin reads registers and its flag only
 * (deciding it inside the loop put four argument loads into every spin of every wait).
 */
struct moe_spin {
    unsigned long long deadline;
    int stage;
    bool elastic; // an elastic buffer's wait on a PE's signals: a peer's, or this PE's own blocks (what != 5)
    bool peer;    // ... on a peer's: it may be marked gone
};

__device__ __forceinline__ moe_spin moe_spin_begin(const ucn_moe_args &a, unsigned long long deadline, long long who, long long what) {
    moe_spin s;
    s.deadline = deadline;
    s.stage = 0;
    // Not this PE's own grid barrier (what 5); on a PE's own blocks (which may be waiting on a dead peer
    // themselves) it gets the grace and the extension, never a loss.
    s.elastic = a.elastic && a.active != 0 && what != 5 && who >= 0 && who < a.nranks;
    s.peer = s.elastic && who != a.rank;
    return s;
}

/* At the deadline: true (and a record) when the wait ends; false when an elastic wait looks again. */
__device__ __forceinline__ bool moe_spin_deadline(const ucn_moe_args &a, moe_spin &s, long long *err, long long who, long long what,
                                                  long long v) {
    if (s.elastic && s.stage == 0) { // look again after the grace
        s.stage = 1;
        s.deadline = moe_now() + MOE_LOSS_GRACE_NS;
        return false;
    }
    if (s.elastic && s.stage == 1 && *(const volatile long long *) err == UCN_MOE_ERR_LOST) { // it may be waiting on that loss
        s.stage = 2;
        s.deadline = moe_now() + (unsigned long long) a.timeout_ns;
        return false;
    }
    // A peer that did not answer is lost, not an error.
    if (s.peer) moe_lose(a, err, who, what, v);
    else moe_record(err, UCN_MOE_ERR_TIMEOUT, who, what, v);
    return true;
}

/* True (and an error record) when a spin must end: past the deadline, or the host aborted the job. */
__device__ __forceinline__ bool moe_spin_ends(const ucn_moe_args &a, unsigned int spins, moe_spin &s, const volatile long long *abort,
                                              long long *err, long long who, long long what, long long v) {
    // Another block of this PE found `who` gone (its mark is in the mask, which this block reads from L1): stop
    // waiting for it too, rather than a second timeout. The store puts the mark in this SM's L1 as well, so the
    // block's later plain loads of the mask see it.
    if (s.peer && spins % MOE_MARK_POLL == 0 && ((const volatile int *) a.active)[who] == 0) {
        ((volatile int *) a.active)[who] = 0;
        return true;
    }
    if (moe_now() > s.deadline) return moe_spin_deadline(a, s, err, who, what, v);
    if (spins % MOE_ABORT_POLL == 0 && abort != nullptr && *abort != 0) {
        moe_record(err, UCN_MOE_ERR_ABORTED, who, what, v);
        return true;
    }
    return false;
}

/* Spins until *p >= v (unsigned); false (and an error record) at the deadline or on abort. */
__device__ bool moe_wait_ge(const ucn_moe_args &a, const unsigned long long *p, unsigned long long v, unsigned long long deadline,
                            const volatile long long *abort, long long *err, long long who, long long what) {
    moe_spin s = moe_spin_begin(a, deadline, who, what);
    for (unsigned int spins = 1; *(const volatile unsigned long long *) p < v; spins++)
        if (moe_spin_ends(a, spins, s, abort, err, who, what, (long long) v)) return false;
    moe_fence_acquire_gpu(); // the writes the counter's adders released are visible to this thread
    return true;
}

/* Spins until the tag (high 32 bits) of *p is tag; returns the low 32 bits, or -1 at the deadline or on abort. */
__device__ int moe_wait_tag(const ucn_moe_args &a, const unsigned long long *p, unsigned int tag, unsigned long long deadline,
                            const volatile long long *abort, long long *err, long long who) {
    unsigned long long v;
    moe_spin s = moe_spin_begin(a, deadline, who, 0);
    for (unsigned int spins = 1; (unsigned int) ((v = *(const volatile unsigned long long *) p) >> 32) != tag; spins++)
        if (moe_spin_ends(a, spins, s, abort, err, who, 0, (long long) tag)) return -1;
    return (int) (unsigned int) v;
}
