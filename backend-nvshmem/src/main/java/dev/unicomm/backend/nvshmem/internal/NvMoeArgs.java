package dev.unicomm.backend.nvshmem.internal;

import java.util.Arrays;

/**
 * The argument block of the MoE kernels: a {@code long[]} laid out exactly like {@code ucn_moe_args}
 * in {@code ucn_moe.h} (field order below; every field 64 bits). One instance per buffer, reused.
 */
public final class NvMoeArgs {
    public static final int RANK = 0,
            NRANKS = 1,
            TOKENS = 2,
            HIDDEN = 3,
            TOPK = 4,
            EXPERTS = 5,
            LOCAL_EXPERTS = 6,
            MAX_TOKENS = 7,
            RECV_TOKENS = 8,
            FP8 = 9,
            X = 10,
            X_SCALES = 11,
            TOPK_IDX = 12,
            TOPK_W = 13,
            PEERS = 14,
            OFF_CNT = 15,
            OFF_RECV = 16,
            OFF_RECV_SCALES = 17,
            OFF_RECV_IDX = 18,
            OFF_RECV_W = 19,
            OFF_DONE = 20,
            OFF_READY = 21,
            REGION = 22,
            POS = 23,
            SEND_OFF = 24,
            INFO = 25,
            ERR = 26,
            OUT = 27,
            OUT_W = 28,
            Y = 29,
            Y_W = 30,
            GEN = 31,
            EXPECTED = 32,
            BLOCKS = 33,
            THREADS = 34,
            TIMEOUT_NS = 35,
            STREAM = 36,
            ROUTE = 37,
            RECV_COUNT = 38,
            LAYOUT_RANK = 39,
            LAYOUT_EXPERT = 40,
            LAYOUT_IN_RANK = 41,
            HOST_SLOT = 42,
            SEQ = 43,
            GRID_DONE = 44,
            CTL = 45,
            TRANSPORT = 46,
            SCRATCH = 47,
            SCRATCH_PER_WARP = 48,
            OFF_COMB = 49,
            PART_COUNTS = 50,
            ACTIVE = 51,
            DROPPED = 52,
            PRE_BARRIER = 53,
            ELASTIC = 54,
            HOST_MASK = 55,
            ALL_LIVE = 56;
    /** Words in the block (UCN_MOE_ARGS_WORDS). */
    public static final int WORDS = 57;

    /** err[0] codes (UCN_MOE_ERR_*). */
    public static final int ERR_EXPERT = 1, ERR_DUPLICATE = 2, ERR_TIMEOUT = 3, ERR_ABORTED = 5, ERR_LOST = 6;

    /** What every sender adds to a receiver's arrival counter per operation, whatever its grid size. */
    public static final long SIGNAL_PER_OP = 1L << 20;

    private final long[] words = new long[WORDS];

    public NvMoeArgs set(int field, long value) {
        words[field] = value;
        return this;
    }

    public long get(int field) {
        return words[field];
    }

    /** The fields of one operation: the per-buffer ones stay, the per-operation ones are cleared first. */
    public long[] words() {
        return words;
    }

    /** Clears the per-operation inputs (tensors, counters) and keeps the buffer's layout fields. */
    public NvMoeArgs clearOperation() {
        for (int f : new int[] {
            TOKENS,
            RECV_TOKENS,
            FP8,
            X,
            X_SCALES,
            TOPK_IDX,
            TOPK_W,
            POS,
            SEND_OFF,
            OUT,
            OUT_W,
            Y,
            Y_W,
            GEN,
            EXPECTED,
            INFO,
            ERR,
            HOST_SLOT,
            SEQ,
            GRID_DONE,
            CTL,
            DROPPED,
            PRE_BARRIER
        }) words[f] = 0;
        return this;
    }

    @Override
    public String toString() {
        return "NvMoeArgs" + Arrays.toString(words);
    }
}
