package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig.Mode;
import dev.unicomm.api.MoeHandle;

/** A stream-ordered dispatch (one generation: valid until the buffer's next stream-ordered dispatch). */
final class StreamOrderedHandle implements MoeHandle {
    final NvshmemMoe owner;
    final int tokens;

    StreamOrderedHandle(NvshmemMoe owner, int tokens) {
        this.owner = owner;
        this.tokens = tokens;
    }

    @Override
    public Mode mode() {
        return Mode.LOW_LATENCY;
    }

    @Override
    public int numTokens() {
        return tokens;
    }

    @Override
    public int numRecvTokens() {
        return -1;
    } // on the device (recvCount)

    @Override
    public String toString() {
        return "nvshmem stream-ordered low-latency handle";
    }
}
