package dev.unicomm.conformance.broken;

import dev.unicomm.api.SymmetricBuffer;

/** Broken on purpose: fetch-add and add are a fetch and a separate set, so concurrent updates get lost. */
public final class LostUpdateAtomicsProvider extends DecoratedProvider {
    public static final String NAME = "shm-lost-update-atomics";

    public LostUpdateAtomicsProvider() {
        super(NAME, raw -> new dev.unicomm.conformance.broken.ForwardingRma(raw) {
            @Override
            public long atomicFetchAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
                long v = raw.atomicFetch(buf, offset, pe);
                long until = System.nanoTime() + 20_000; // widen the race window
                while (System.nanoTime() < until) Thread.onSpinWait();
                raw.atomicSet(buf, offset, v + delta, pe);
                return v;
            }

            @Override
            public void atomicAdd(SymmetricBuffer buf, long offset, long delta, int pe) {
                atomicFetchAdd(buf, offset, delta, pe);
            }
        });
    }
}
