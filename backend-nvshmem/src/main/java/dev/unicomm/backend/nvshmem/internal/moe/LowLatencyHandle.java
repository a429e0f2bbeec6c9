package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig.Mode;

/** One low-latency dispatch: its sequence number (parity = generation slot) and completion stamp. */
final class LowLatencyHandle extends NvshmemHandle {
    final long gen, stamp;
    final int[] counts;
    /** The active-rank mask's epoch of the dispatch, and its drops per token (filled at receive; null while all are active). */
    final long maskEpoch;

    final int[] dropped;
    int numRecv = -1;
    boolean received;

    LowLatencyHandle(NvshmemMoe owner, long gen, int tokens, long stamp, int[] counts, long maskEpoch, int[] dropped) {
        super(owner, Mode.LOW_LATENCY, tokens);
        this.maskEpoch = maskEpoch;
        this.dropped = dropped;
        this.gen = gen;
        this.stamp = stamp;
        this.counts = counts;
    }

    @Override
    public int numRecvTokens() {
        return numRecv;
    }

    @Override
    public String toString() {
        return "nvshmem low-latency handle #" + gen;
    }
}
