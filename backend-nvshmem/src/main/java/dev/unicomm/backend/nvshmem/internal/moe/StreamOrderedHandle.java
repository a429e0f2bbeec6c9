package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig.Mode;

/** A stream-ordered dispatch (one generation: valid until the buffer's next stream-ordered dispatch). */
final class StreamOrderedHandle extends NvshmemHandle {

    StreamOrderedHandle(NvshmemMoe owner, int tokens) {
        super(owner, Mode.LOW_LATENCY, tokens);
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
