package dev.unicomm.backend.shm;

/**
 * Layout of the control area at the start of every PE's shared file (before its heap). Flags that
 * different PEs write live on their own 128-byte lines (two cache lines: the adjacent-line
 * prefetcher would otherwise make them share).
 *
 * <pre>
 *   0        header: magic, version, pid, rank, heap size, world size, blame word + reason (who this PE
 *              gave up because of, for its peers), left word (closed cleanly)
 *   16 KiB   team slots: {@value #TEAM_SLOTS} x {@value #SLOT_BYTES} B; slot 0 is the world team
 *              per slot: {@value #MAX_ROUNDS} barrier-round flags, a 2-entry split mailbox, then a
 *              2-entry agreement mailbox (exchange number + 4 call words, double-buffered)
 *   512 KiB  agreement payloads: per team slot, 2 x {@value #PAYLOAD_BYTES} B (double-buffered like the
 *              mailbox): the data a small collective carries in its agreement exchange
 * </pre>
 */
final class Control {
    private Control() {}

    static final long MAGIC = 0x756e69636f6d6d31L; // "unicomm1"
    static final long VERSION = 1;

    static final long HDR_MAGIC = 0;
    static final long HDR_VERSION = 8;
    static final long HDR_PID = 16;
    static final long HDR_RANK = 24;
    static final long HDR_HEAP_SIZE = 32;
    static final long HDR_WORLD_SIZE = 40;
    /** 0, or 2 + the rank this PE gave up because of (-1: the rendezvous host); written once. */
    static final long HDR_BLAME = 48;
    /** Length and UTF-8 bytes of the reason that goes with the blame word. */
    static final long HDR_REASON_LEN = 56;

    static final long HDR_REASON = 64;
    static final int REASON_BYTES = 1024;
    /**
     * 1 once this PE passed its closing barrier: its lock may go while slower peers still finish that
     * barrier, and they must not take the missing lock for a death. Written once, after the reason.
     */
    static final long HDR_LEFT = 2048;

    static final long LINE = 128;

    static final long TEAMS = 16 * 1024;
    static final int TEAM_SLOTS = 64;
    /** Dissemination rounds per barrier: ceil(log2(size)), so up to 2^24 PEs. */
    static final int MAX_ROUNDS = 24;

    static final long SLOT_BYTES = 4096;
    static final long SLOT_MAILBOX = MAX_ROUNDS * LINE;

    static final long PAYLOADS = 512 * 1024;
    /** Data one member may carry in one agreement exchange. */
    static final long PAYLOAD_BYTES = 4096;

    /** Bytes of control area before the heap; page-aligned so the heap starts page-aligned. */
    static final long BYTES = 1L << 20;

    static {
        assert TEAMS + TEAM_SLOTS * SLOT_BYTES <= PAYLOADS;
        assert PAYLOADS + TEAM_SLOTS * 2 * PAYLOAD_BYTES <= BYTES;
        assert SLOT_MAILBOX + 4 * LINE <= SLOT_BYTES;
    }

    /** Offset of barrier-round {@code round}'s flag in team slot {@code slot}. */
    static long roundFlag(int slot, int round) {
        return TEAMS + slot * SLOT_BYTES + round * LINE;
    }

    /** Offset of the split mailbox entry of team slot {@code slot} for split number {@code seq}. */
    static long splitMailbox(int slot, long seq) {
        return TEAMS + slot * SLOT_BYTES + SLOT_MAILBOX + (seq & 1) * LINE;
    }

    /** Offset of the agreement mailbox entry of team slot {@code slot} for exchange number {@code seq}. */
    static long agreeMailbox(int slot, long seq) {
        return TEAMS + slot * SLOT_BYTES + SLOT_MAILBOX + (2 + (seq & 1)) * LINE;
    }

    /** Offset of the agreement payload of team slot {@code slot} for exchange number {@code seq}. */
    static long agreePayload(int slot, long seq) {
        return PAYLOADS + (2L * slot + (seq & 1)) * PAYLOAD_BYTES;
    }

    /** Offset of team slot {@code slot}. */
    static long slot(int slot) {
        return TEAMS + slot * SLOT_BYTES;
    }
}
