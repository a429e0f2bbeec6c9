package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.Team;
import dev.unicomm.spi.CallAgreement;
import java.lang.foreign.ValueLayout;

/**
 * The call agreement on NVSHMEM: each member puts its {@value #WORDS} words into slot [team rank] of
 * every member's agreement area, then a team barrier; each reads the whole area back, and a second
 * barrier keeps the next exchange from overwriting slots a slower member has not read yet. Only puts
 * and barriers (NVSHMEM's collectives end the process where several PEs share a GPU without MPS).
 * About two barriers' worth of latency, so it is not {@linkplain #coversEveryCall() cheap enough} for
 * barriers and MoE calls: the API agrees on collectives, heap and team calls with it.
 */
final class NvshmemCallAgreement implements CallAgreement {
    /** Pinned host offsets: this PE's words, then every member's. */
    private static final long MINE = 64, ALL = 128;

    private final NvshmemCommunicator c;

    NvshmemCallAgreement(NvshmemCommunicator c) {
        this.c = c;
    }

    @Override
    public boolean coversEveryCall() {
        return false;
    }

    @Override
    public long[][] exchange(Team team, long[] words) {
        NvshmemTeam t = (NvshmemTeam) team;
        int n = t.size(), me = t.rank();
        long[][] all = new long[n][];
        if (n == 1) {
            all[0] = words.clone();
            return all;
        }
        long slot = 8L * WORDS;
        var pin = c.io.pinnedSeg;
        var s = c.scratch;
        c.lock.lock();
        try {
            c.ensureOpen();
            for (int i = 0; i < WORDS; i++) pin.set(ValueLayout.JAVA_LONG, MINE + 8L * i, words[i]);
            NvOps.copyAsync(s.agreeSrc(), c.io.pinned + MINE, slot, c.io.ctrl);
            for (int j = 0; j < n; j++)
                NvOps.put(s.agreeDst() + slot * me, s.agreeSrc(), slot, t.worldRank(j), true, c.io.ctrl);
            NvOps.quiet(c.io.ctrl);
            c.teamBarrier(t.handle, c.io.ctrl);
            NvOps.copyAsync(c.io.pinned + ALL, s.agreeDst(), slot * n, c.io.ctrl);
            c.teamBarrier(t.handle, c.io.ctrl);
            c.await(c.io.ctrl, "collective call agreement");
            for (int j = 0; j < n; j++) {
                all[j] = new long[WORDS];
                for (int i = 0; i < WORDS; i++) all[j][i] = pin.get(ValueLayout.JAVA_LONG, ALL + slot * j + 8L * i);
            }
            return all;
        } finally {
            c.lock.unlock();
        }
    }
}
