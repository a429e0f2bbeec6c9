package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig.Mode;
import dev.unicomm.api.MoeHandle;

/** Routing of one normal dispatch: device int32 positions [T][R] and send offsets [R]. */
final class NormalHandle implements MoeHandle {
    final NvshmemMoe owner;
    final long pos;
    final int tokens;
    int numRecv;
    int[] perExpert;

    NormalHandle(NvshmemMoe owner, long pos, int tokens) {
        this.owner = owner;
        this.pos = pos;
        this.tokens = tokens;
    }

    @Override public Mode mode() { return Mode.NORMAL; }
    @Override public int numTokens() { return tokens; }
    @Override public int numRecvTokens() { return numRecv; }
    @Override public String toString() { return "nvshmem normal handle[" + tokens + " -> " + numRecv + "]"; }
}
