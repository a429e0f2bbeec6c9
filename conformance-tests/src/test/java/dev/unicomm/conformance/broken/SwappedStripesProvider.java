package dev.unicomm.conformance.broken;

import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;

/**
 * Broken on purpose: a put of two 64 KiB stripes or more delivers its first two stripes to each
 * other's place. Every byte arrives, only out of place; the kit's short-period byte pattern repeats
 * every 64 KiB, so only the rule with position-carrying data sees it.
 */
public final class SwappedStripesProvider extends DecoratedProvider {
    public static final String NAME = "shm-swapped-stripes";
    static final long STRIPE = 64 << 10;

    public SwappedStripesProvider() {
        super(NAME, raw -> new ForwardingRma(raw) {
            @Override
            public void put(SymmetricBuffer dst, long dstOffset, Memory src, long srcOffset, long bytes, int pe) {
                if (bytes < 2 * STRIPE) {
                    raw.put(dst, dstOffset, src, srcOffset, bytes, pe);
                    return;
                }
                raw.put(dst, dstOffset + STRIPE, src, srcOffset, STRIPE, pe);
                raw.put(dst, dstOffset, src, srcOffset + STRIPE, STRIPE, pe);
                raw.put(dst, dstOffset + 2 * STRIPE, src, srcOffset + 2 * STRIPE, bytes - 2 * STRIPE, pe);
            }
        });
    }
}
