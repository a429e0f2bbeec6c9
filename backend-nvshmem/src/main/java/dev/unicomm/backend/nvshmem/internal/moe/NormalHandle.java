package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig.Mode;
import dev.unicomm.api.MoeHandle;

/** Routing of one normal dispatch: device int32 positions [T][R] and send offsets [R]. */
final class NormalHandle implements MoeHandle {
    final NvshmemMoe owner;
    final long pos;
    final int tokens;
    /** The active-rank mask's epoch it was routed under (MoeActiveMask): its positions name only ranks active then. */
    final long maskEpoch;

    int numRecv;
    int[] perExpert;

    NormalHandle(NvshmemMoe owner, long pos, int tokens, long maskEpoch) {
        this.owner = owner;
        this.pos = pos;
        this.tokens = tokens;
        this.maskEpoch = maskEpoch;
    }

    @Override
    public Mode mode() {
        return Mode.NORMAL;
    }

    @Override
    public int numTokens() {
        return tokens;
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
