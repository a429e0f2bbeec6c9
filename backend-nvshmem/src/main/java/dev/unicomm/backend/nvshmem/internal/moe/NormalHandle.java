package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig.Mode;

/** Routing of one normal dispatch: device int32 positions [T][R] and send offsets [R]. */
final class NormalHandle extends NvshmemHandle {
    final long pos;
    /** The active-rank mask's epoch it was routed under (MoeActiveMask): its positions name only ranks active then. */
    final long maskEpoch;

    int numRecv;
    int[] perExpert;

    NormalHandle(NvshmemMoe owner, long pos, int tokens, long maskEpoch) {
        super(owner, Mode.NORMAL, tokens);
        this.pos = pos;
        this.maskEpoch = maskEpoch;
    }

    @Override
    public int numRecvTokens() {
        return numRecv;
    }

    @Override
    public String toString() {
        return "nvshmem normal handle[" + tokens + " -> " + numRecv + "]";
    }
}
