package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig.Mode;
import dev.unicomm.api.MoeHandle;

/** What every nvshmem MoE handle has: the buffer that made it, its mode and the dispatch's own token count. */
abstract class NvshmemHandle implements MoeHandle {
    final NvshmemMoe owner;
    final int tokens;
    private final Mode mode;

    NvshmemHandle(NvshmemMoe owner, Mode mode, int tokens) {
        this.owner = owner;
        this.mode = mode;
        this.tokens = tokens;
    }

    @Override
    public final Mode mode() {
        return mode;
    }

    @Override
    public final int numTokens() {
        return tokens;
    }
}
